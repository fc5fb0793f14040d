import { request } from 'node:http';
import type { Module, Permission } from '../../domain/identity/access.ts';
import type { TestApp } from './app.ts';
import { giveLogin, provisionTenant } from './identity.ts';

export interface PageReply {
  status: number;
  text: string;
  headers: Headers;
  /** The Set-Cookie lines of this reply, whole (with their attributes). */
  setCookies: string[];
}

/**
 * What a browser does with the console, over real HTTP and no further: keeps cookies, asks for
 * HTML, does not follow redirects (the tests read them), and fills a form's CSRF field from the
 * page it was served on. The real-browser suite drives chromium; this one checks the HTTP contract.
 */
export class ConsoleBrowser {
  readonly cookies = new Map<string, string>();

  constructor(
    private readonly app: TestApp,
    private readonly headers: Record<string, string> = {},
    /** The loopback address the requests leave from (127.0.0.2, ...): another caller, as the service sees it. */
    private readonly localAddress?: string,
  ) {}

  async get(path: string): Promise<PageReply> {
    return this.send('GET', path);
  }

  /** POST urlencoded fields; `csrf: 'from <path>'` takes the token from that page first. */
  async post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<PageReply> {
    return this.send('POST', path, new URLSearchParams(fields).toString(), headers);
  }

  /** The CSRF token of the form on a page. */
  async csrfOf(path: string): Promise<string> {
    const page = await this.get(path);
    const match = /name="csrf" value="([^"]+)"/.exec(page.text);
    if (!match) throw new Error(`no csrf field on ${path} (${page.status}): ${page.text.slice(0, 300)}`);
    return match[1]!;
  }

  async signIn(email: string, password: string): Promise<PageReply> {
    return this.post('/console/entrar', { email, senha: password, csrf: await this.csrfOf('/console/entrar') });
  }

  // node:http, not fetch: fetch drops the headers a browser sets itself (Origin), which the tests must set.
  private async send(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<PageReply> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const reply = await new Promise<Response>((resolve, reject) => {
      const outgoing = request(`${this.app.url}${path}`, {
        method,
        localAddress: this.localAddress,
        headers: {
          accept: 'text/html,application/xhtml+xml',
          ...(body !== undefined && { 'content-type': 'application/x-www-form-urlencoded' }),
          ...(cookie && { cookie }),
          ...this.headers,
          ...headers,
        },
      });
      outgoing.on('error', reject);
      outgoing.on('response', (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          const replyHeaders = new Headers();
          for (let i = 0; i < incoming.rawHeaders.length; i += 2) replyHeaders.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
          resolve(new Response(incoming.statusCode === 303 || chunks.length === 0 ? null : Buffer.concat(chunks), { status: incoming.statusCode!, headers: replyHeaders }));
        });
      });
      outgoing.end(body);
    });
    const setCookies = reply.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair] = line.split(';');
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: reply.status, text: await reply.text(), headers: reply.headers, setCookies };
  }
}

/** A new organization whose first user is signed in to the console: the browser and the tenant. */
export async function signedInTenant(app: TestApp, options: { name: string; email: string; password: string; modules?: readonly Module[]; permissions?: readonly Permission[] }) {
  const tenant = await provisionTenant(app, { name: options.name, modules: options.modules, permissions: options.permissions });
  await giveLogin(app, tenant.userId, options.email, options.password);
  const browser = new ConsoleBrowser(app);
  const signedIn = await browser.signIn(options.email, options.password);
  if (signedIn.status !== 303) throw new Error(`sign-in of ${options.email} answered ${signedIn.status}`);
  return { tenant, browser };
}
