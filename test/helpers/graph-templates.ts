// A fake of Meta's Graph API for the WhatsApp tests that need only template lists: it answers
// GET /vX/WABA1/message_templates with `templates` to the bearer `token`, and 401 to anything else (sends included).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GraphTemplatesApi {
  url: string;
  close(): Promise<void>;
}

/** Starts it on a loopback port. */
export async function startGraphTemplatesApi(templates: readonly object[], token: string): Promise<GraphTemplatesApi> {
  const server = http.createServer((req, res) => {
    if (/^\/v[\d.]+\/WABA1\/message_templates/.test(req.url ?? '') && req.headers.authorization === `Bearer ${token}`) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: templates }));
      return;
    }
    res.writeHead(401).end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
