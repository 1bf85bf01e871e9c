// oidc-provider 9 prints « Unsupported runtime. Use Node.js v22.x LTS » when it is loaded on
// any Node before 22 LTS: its maintainer's support policy, not a missing feature — what it
// calls beyond Node 18 (URL.parse, crypto.hash) is in Node 20.19, the version the project
// supports and tests on, so the line only alarmed every start. Imported before oidc-provider,
// this drops that one line while oidc-provider loads (`oidcProviderLoaded` puts console.warn
// back); on Node 22 and later oidc-provider prints nothing and this changes nothing.
const warn = console.warn;
const NOTICE = 'oidc-provider WARNING: Unsupported runtime.';

console.warn = (...args: unknown[]) => {
  // On a terminal the line comes wrapped in colour codes: looked for inside it.
  if (typeof args[0] === 'string' && args[0].includes(NOTICE)) return;
  warn.apply(console, args);
};

/** Called once oidc-provider is loaded: console.warn as it was. */
export function oidcProviderLoaded(): void {
  console.warn = warn;
}
