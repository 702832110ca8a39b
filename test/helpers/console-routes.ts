// Every route the console registers, read from its router (a stand-in for fastify that only records them).
import type { FastifyInstance } from 'fastify';
import { registerConsole } from '../../src/http/console/index.ts';
import { createLogger } from '../../src/logger.ts';
import type { AppContext } from '../../src/operations/execute.ts';

export interface ConsoleRoute {
  method: 'GET' | 'POST';
  url: string;
}

export function consoleRoutes(): ConsoleRoute[] {
  const routes: ConsoleRoute[] = [];
  const fastify = { route: (o: ConsoleRoute) => routes.push({ method: o.method, url: o.url }) };
  registerConsole(fastify as unknown as FastifyInstance, {} as AppContext, createLogger('silent'));
  return routes;
}

/** A route's URL with its parameters filled in (an id, a sub-account's name, a language, an asset). */
export function routePath(url: string, values: { username: string; id: string }): string {
  return url
    .replace(':id', values.id)
    .replace(':username', values.username)
    .replace(':lang', 'en')
    .replace(':name', 'console.css');
}
