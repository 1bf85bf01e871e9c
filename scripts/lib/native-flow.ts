// The OAuth flow of a native client, driven without a browser: discovery, dynamic
// registration, PKCE, the login and consent forms, loopback redirect, code exchange. Used
// by `npm run token` and by the tests, so both get tokens the way users do.
import { createHash, randomBytes } from 'node:crypto';

export interface FlowOptions {
  baseUrl: string;
  email: string;
  password: string;
  /** Space-separated; omitted: the server's default (mcp:public). */
  scope?: string;
  clientName?: string;
  /** Deny at the consent page instead of approving. */
  decision?: 'approve' | 'deny';
  resource?: string;
}

export interface FlowResult {
  accessToken: string;
  refreshToken: string | undefined;
  scope: string;
  expiresIn: number;
  clientId: string;
  tokenEndpoint: string;
}

export class FlowError extends Error {}

/** A minimal cookie jar: one origin, names and values only. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (!pair || eq < 1) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function formFields(html: string): { action: string; fields: Record<string, string> } {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new FlowError('formulaire introuvable dans la page');
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) fields[m[1] as string] = (m[2] as string).replace(/&amp;/g, '&');
  return { action: action.replace(/&amp;/g, '&'), fields };
}

/** Follows redirects by hand (keeping cookies) until a page or the loopback redirect. */
export async function follow(url: string, jar: CookieJar, init: RequestInit = {}, stopAt?: string): Promise<{ url: string; res: Response }> {
  let current = url;
  let request: RequestInit = init;
  for (let hops = 0; hops < 15; hops++) {
    const res = await fetch(current, { ...request, redirect: 'manual', headers: { ...(request.headers as Record<string, string>), cookie: jar.header() } });
    jar.store(res);
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      const next = new URL(location, current).toString();
      if (stopAt && next.startsWith(stopAt)) return { url: next, res };
      current = next;
      request = {};
      continue;
    }
    return { url: current, res };
  }
  throw new FlowError('trop de redirections');
}

export async function discover(baseUrl: string): Promise<Record<string, string>> {
  const res = await fetch(`${baseUrl}/.well-known/oauth-authorization-server`);
  if (!res.ok) throw new FlowError(`métadonnées du serveur d'autorisation illisibles (${res.status})`);
  return (await res.json()) as Record<string, string>;
}

export async function registerNativeClient(registrationEndpoint: string, redirectUri: string, clientName: string): Promise<string> {
  const res = await fetch(registrationEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: clientName,
      application_type: 'native',
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  const body = (await res.json()) as { client_id?: string; error_description?: string };
  if (!res.ok || !body.client_id) throw new FlowError(`enregistrement refusé : ${body.error_description ?? res.status}`);
  return body.client_id;
}

/** Fills the login form then approves (or denies) at the consent page; returns the redirect with the code. */
export async function signInAndConsent(
  authorizeUrl: string,
  redirectUri: string,
  credentials: { email: string; password: string },
  decision: 'approve' | 'deny' = 'approve',
): Promise<URL> {
  const jar = new CookieJar();
  let step = await follow(authorizeUrl, jar, {}, redirectUri);
  for (let pages = 0; pages < 4; pages++) {
    if (step.url.startsWith(redirectUri)) return new URL(step.url);
    const html = await step.res.text();
    if (step.res.status !== 200) throw new FlowError(`page inattendue (${step.res.status}) : ${html.slice(0, 200)}`);
    const { action, fields } = formFields(html);
    const form = new URLSearchParams(fields);
    if (html.includes('name="password"')) {
      if (pages > 0 && html.includes('role="alert"')) throw new FlowError(/role="alert">([^<]+)/.exec(html)?.[1] ?? 'connexion refusée');
      form.set('email', credentials.email);
      form.set('password', credentials.password);
    } else {
      form.set('decision', decision);
    }
    step = await follow(new URL(action, step.url).toString(), jar, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() }, redirectUri);
  }
  throw new FlowError('le flux ne s’est pas terminé');
}

export async function obtainToken(options: FlowOptions): Promise<FlowResult> {
  const meta = await discover(options.baseUrl);
  const redirectUri = 'http://127.0.0.1:53682/callback';
  const clientId = await registerNativeClient(meta.registration_endpoint as string, redirectUri, options.clientName ?? 'Script (npm run token)');
  const { verifier, challenge } = pkcePair();
  const state = randomBytes(16).toString('base64url');
  const authorize = new URL(meta.authorization_endpoint as string);
  authorize.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    resource: options.resource ?? `${options.baseUrl}/api/mcp`,
    ...(options.scope ? { scope: options.scope } : {}),
  }).toString();
  const back = await signInAndConsent(authorize.toString(), redirectUri, options, options.decision);
  if (back.searchParams.get('error')) throw new FlowError(`${back.searchParams.get('error')} : ${back.searchParams.get('error_description') ?? ''}`);
  if (back.searchParams.get('state') !== state) throw new FlowError('state inattendu');
  const code = back.searchParams.get('code');
  if (!code) throw new FlowError('aucun code reçu');
  const res = await fetch(meta.token_endpoint as string, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier }).toString(),
  });
  const body = (await res.json()) as { access_token?: string; refresh_token?: string; scope?: string; expires_in?: number; error_description?: string };
  if (!res.ok || !body.access_token) throw new FlowError(`échange du code refusé : ${body.error_description ?? res.status}`);
  return {
    accessToken: body.access_token,
    refreshToken: body.refresh_token,
    scope: body.scope ?? '',
    expiresIn: body.expires_in ?? 0,
    clientId,
    tokenEndpoint: meta.token_endpoint as string,
  };
}
