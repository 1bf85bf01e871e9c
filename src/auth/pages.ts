// Server-rendered French pages of the authorization server and of the account settings:
// plain HTML and CSS, usable without JavaScript, no external resource.

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

const STYLE = `
  body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f3f5f8; color: #1d2533; margin: 0; }
  main { max-width: 30rem; margin: 4rem auto; background: #fff; border-radius: 10px; padding: 2rem 2.2rem; box-shadow: 0 2px 12px rgba(20, 30, 60, .08); }
  main.wide { max-width: 52rem; }
  h1 { font-size: 1.35rem; margin: 0 0 1rem; }
  p { line-height: 1.5; }
  label { display: block; font-weight: 600; margin: 1rem 0 .3rem; }
  input[type=email], input[type=password] { width: 100%; box-sizing: border-box; padding: .6rem .7rem; border: 1px solid #b8c1cf; border-radius: 6px; font-size: 1rem; }
  button { margin-top: 1.3rem; padding: .65rem 1.2rem; border: 0; border-radius: 6px; font-size: 1rem; cursor: pointer; background: #1f5fbf; color: #fff; }
  button.secondary { background: #e3e8ef; color: #1d2533; margin-left: .5rem; }
  button.danger { background: #b42318; margin-top: 0; padding: .4rem .8rem; font-size: .9rem; }
  .error { background: #fdecea; color: #8a1c12; padding: .7rem .9rem; border-radius: 6px; }
  ul.scopes li { margin: .4rem 0; }
  table { width: 100%; border-collapse: collapse; margin-top: 1rem; }
  th, td { text-align: left; padding: .55rem .4rem; border-bottom: 1px solid #e3e8ef; vertical-align: top; font-size: .95rem; }
  .muted { color: #5b6678; font-size: .9rem; }
  footer.legal { text-align: center; font-size: .85rem; color: #5b6678; margin: -2.5rem auto 2rem; }
  footer.legal a { color: #5b6678; }
  input[type=text], select { box-sizing: border-box; padding: .5rem .6rem; border: 1px solid #b8c1cf; border-radius: 6px; font-size: 1rem; }
  input[type=text] { width: 100%; }
  h2 { font-size: 1.1rem; margin: 1.8rem 0 .4rem; }
`;

/** On every page: the legal pages (their addresses are fixed: legal-pages.ts). */
const FOOTER = `<footer class="legal"><a href="/confidentialite">Confidentialité</a> · <a href="/conditions-utilisation">Conditions d’utilisation</a> · <a href="/mentions-legales">Mentions légales</a> · <a href="/support">Assistance</a></footer>`;

/** `style`: a page's own rules, after the shared ones (a record's page with its sections). */
export function page(title: string, body: string, wide = false, style = ''): string {
  return `<!doctype html>
<html lang="fr">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}${style}</style></head>
<body><main${wide ? ' class="wide"' : ''}>${body}</main>${FOOTER}</body>
</html>`;
}

export const SCOPE_LABELS: Record<string, string> = {
  'mcp:read': 'Lire les données publiques du bâtiment et des marchés, et le contenu de votre espace de travail',
  'mcp:write': 'Écrire dans votre espace de travail (alertes, suivis, dossiers de réponse, brouillons) et envoyer les courriels que vous demandez',
  'mcp:public': 'Accès historique du connecteur : lectures et écritures du connecteur, sauf les abonnements d’automatisation (événements) et sans écriture par l’API REST',
};

export function loginPage(input: { action: string; csrf: string; clientName: string | null; email?: string; error?: string }): string {
  return page(
    'Connexion',
    `<h1>Connexion</h1>
<p>${input.clientName ? `<strong>${escapeHtml(input.clientName)}</strong> demande l’accès à votre compte.` : 'Connectez-vous à votre compte.'}</p>
${input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : ''}
<form method="post" action="${escapeHtml(input.action)}">
  <input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
  <label for="email">Adresse électronique</label>
  <input id="email" type="email" name="email" autocomplete="username" required value="${escapeHtml(input.email ?? '')}">
  <label for="password">Mot de passe</label>
  <input id="password" type="password" name="password" autocomplete="current-password" required>
  <button type="submit">Se connecter</button>
</form>
<p class="muted"><a href="/compte/mot-de-passe-oublie">Mot de passe oublié ?</a> · <a href="/compte/inscription">Créer un compte</a></p>`,
  );
}

export function consentPage(input: { action: string; csrf: string; clientName: string | null; scopes: string[] }): string {
  const items = input.scopes.map((s) => `<li><strong>${escapeHtml(s)}</strong> : ${escapeHtml(SCOPE_LABELS[s] ?? s)}</li>`).join('\n');
  return page(
    'Autoriser l’accès',
    `<h1>Autoriser l’accès</h1>
<p><strong>${escapeHtml(input.clientName ?? 'Une application')}</strong> demande les autorisations suivantes :</p>
<ul class="scopes">${items}</ul>
<p class="muted">Vous pourrez retirer cet accès à tout moment dans les paramètres du compte, section « Accès IA ».</p>
<form method="post" action="${escapeHtml(input.action)}">
  <input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
  <button type="submit" name="decision" value="approve">Autoriser</button>
  <button type="submit" name="decision" value="deny" class="secondary">Refuser</button>
</form>`,
  );
}

export function errorPage(code: string, description: string): string {
  return page('Erreur', `<h1>La demande n’a pas abouti</h1><p class="error">${escapeHtml(description || code)}</p><p class="muted">Code : ${escapeHtml(code)}</p>`);
}
