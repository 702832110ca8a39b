// A cookie-keeping HTTPS client for the console (no browser): GET pages, POST forms with the page's CSRF token.
import { Agent, request } from 'undici';

const insecure = new Agent({ connect: { rejectUnauthorized: false } });

export interface ConsoleReply {
  status: number;
  text: string;
  /** The body as sent (a CSV's byte order mark included). */
  bytes: Buffer;
  location?: string;
  setCookies: string[];
}

export class ConsoleClient {
  readonly cookies = new Map<string, string>();
  /** The CSRF token of the last page fetched that had a form. */
  csrf = '';
  /** Sent with every request (e.g. X-Forwarded-For behind a trusted proxy). */
  headers: Record<string, string> = {};

  constructor(readonly baseUrl: string) {}

  private async send(method: 'GET' | 'POST', path: string, body?: string | Buffer): Promise<ConsoleReply> {
    const headers: Record<string, string> = { 'accept-language': 'en', ...this.headers };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await request(`${this.baseUrl}${path}`, { method, headers, body, dispatcher: insecure });
    const raw = res.headers['set-cookie'];
    const setCookies = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    for (const c of setCookies) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i);
      const value = pair.slice(i + 1);
      if (/Max-Age=0/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const bytes = Buffer.from(await res.body.arrayBuffer());
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
    const m = /name="_csrf" value="([^"]+)"/.exec(text);
    if (m) this.csrf = m[1];
    return { status: res.statusCode, text, bytes, location: res.headers.location as string | undefined, setCookies };
  }

  get(path: string): Promise<ConsoleReply> {
    return this.send('GET', path);
  }

  /** POSTs a form; the CSRF token of the last page is added unless `_csrf` is given. */
  post(path: string, fields: Record<string, string> = {}): Promise<ConsoleReply> {
    const all = { _csrf: this.csrf, ...fields };
    return this.send('POST', path, new URLSearchParams(all).toString());
  }

  /** POSTs a body exactly as given (bytes a browser would never send), as an urlencoded form. */
  postRaw(path: string, body: string | Buffer): Promise<ConsoleReply> {
    return this.send('POST', path, body);
  }

  async login(username: string, password: string): Promise<ConsoleReply> {
    await this.get('/console/login');
    return this.post('/console/login', { username, password });
  }
}
