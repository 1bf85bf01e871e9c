// The legal pages every directory of AI connectors asks for: privacy policy, terms of use,
// legal notice, support. French texts whose operator-specific parts come from the
// configuration (LEGAL_*, SUPPORT_EMAIL, PRIVACY_EMAIL, PROCESSORS); linked from every page's
// footer (pages.ts) and published in the OAuth and protected-resource metadata.
import type { Middleware } from 'koa';
import type { LegalSettings } from '../config.js';
import { escapeHtml, page } from './pages.js';
import { FULL_ADDRESS_DAYS } from './store/activity-log.js';
import { ORGANISATION_GRACE_DAYS } from './store/team.js';

export const LEGAL_PATHS = { privacy: '/confidentialite', terms: '/conditions-utilisation', notice: '/mentions-legales', support: '/support' } as const;

const e = escapeHtml;

export function privacyHtml(s: LegalSettings): string {
  const processors = s.processors.length ? `<ul>${s.processors.map((p) => `<li>${e(p)}</li>`).join('')}</ul>` : '<p><em>Aucun sous-traitant déclaré par l’exploitant.</em></p>';
  return `<h1>Politique de confidentialité</h1>
<p>Responsable du traitement : ${e(s.operator)}, ${e(s.address)}. Contact pour exercer vos droits : <a href="mailto:${e(s.privacyEmail)}">${e(s.privacyEmail)}</a>.</p>
<h2>Ce qui est conservé, pourquoi, combien de temps</h2>
<ul>
<li><strong>Compte</strong> : adresse électronique, empreinte du mot de passe (scrypt, jamais le mot de passe), date de création et de dernière connexion, organisation et rôle — pour vous identifier et appliquer les droits de votre rôle ; tant que le compte existe.</li>
<li><strong>Espace de travail de l’organisation</strong> (alertes, abonnements, suivis, dossiers de réponse et leurs documents, brouillons, courriels envoyés) — le service que vous utilisez ; tant que l’organisation existe, puis ${ORGANISATION_GRACE_DAYS} jours après le départ de son dernier membre.</li>
<li><strong>Accès IA</strong> : les applications autorisées, leurs portées, leur dernière utilisation ; les jetons sont conservés sous forme d’empreinte — jusqu’à leur expiration ou leur déconnexion.</li>
<li><strong>Journal d’activité</strong> (connexions, invitations, rôles, exports…) — la sécurité du compte et de l’organisation ; l’adresse IP complète ${FULL_ADDRESS_DAYS} jours, puis son seul réseau.</li>
<li><strong>Compteurs d’appels et tentatives de connexion échouées</strong> — les quotas et la protection contre les essais de mots de passe ; quelques minutes à un jour.</li>
<li><strong>Courriels du compte</strong> (confirmation, réinitialisation, invitation) — leur remise ; supprimés après 7 jours.</li>
</ul>
<p>Les données publiques servies (marchés, entreprises, permis…) ne contiennent jamais les coordonnées d’une personne physique.</p>
<h2>Vos droits</h2>
<p>Depuis la page <a href="/compte">Mon compte</a> : rectifier votre adresse, exporter vos données (archive de fichiers JSON, article 20 du RGPD), supprimer votre compte (article 17 : données personnelles effacées, accès révoqués ; ce que vous avez écrit dans l’espace partagé reste à l’organisation, signé « compte supprimé »). Pour toute autre demande : <a href="mailto:${e(s.privacyEmail)}">${e(s.privacyEmail)}</a>. Vous pouvez saisir la CNIL.</p>
<h2>Sous-traitants</h2>
${processors}`;
}

export function termsHtml(s: LegalSettings): string {
  return `<h1>Conditions d’utilisation</h1>
<p>Le service ${e(s.serviceName)} est édité par ${e(s.operator)}. En créant un compte, vous acceptez les présentes conditions.</p>
<h2>Compte et organisation</h2>
<p>Un compte appartient à une personne ; il rejoint au plus une organisation, avec un rôle (administrateur, membre, lecteur). L’administrateur gère les membres et la formule. Gardez votre mot de passe secret (12 caractères au moins) ; les accès IA que vous autorisez agissent en votre nom et se déconnectent depuis « Accès IA ».</p>
<h2>Formules</h2>
<p>La formule gratuite est limitée en appels ; la formule abonnée coûte 12 € HT par utilisateur et par mois, confirmée par un administrateur.</p>
<h2>Données servies</h2>
<p>Les données publiques proviennent de sources ouvertes citées avec chaque fiche ; elles sont servies telles quelles, sans garantie d’exhaustivité. Ne pas les utiliser pour démarcher des personnes physiques.</p>
<h2>Usage loyal</h2>
<p>Pas de contournement des quotas, pas de tentative d’accès aux données d’une autre organisation. L’exploitant peut suspendre un compte qui enfreint ces règles.</p>
<h2>Fin</h2>
<p>Vous pouvez supprimer votre compte à tout moment depuis Mon compte. Le droit français s’applique.</p>`;
}

export function noticeHtml(s: LegalSettings): string {
  return `<h1>Mentions légales</h1>
<p><strong>Éditeur</strong> : ${e(s.operator)}<br>${e(s.address)}<br>${e(s.registration)}</p>
<p><strong>Directeur de la publication</strong> : ${e(s.director)}</p>
<p><strong>Hébergeur</strong> : ${e(s.host)}</p>
<p><strong>Contact</strong> : <a href="mailto:${e(s.supportEmail)}">${e(s.supportEmail)}</a></p>`;
}

export function supportHtml(s: LegalSettings): string {
  return `<h1>Assistance</h1>
<p>Une question, un problème de compte ou de données : écrire à <a href="mailto:${e(s.supportEmail)}">${e(s.supportEmail)}</a>, en précisant l’adresse de votre compte (jamais votre mot de passe).</p>
<ul>
<li>Mot de passe oublié : <a href="/compte/mot-de-passe-oublie">recevoir un lien</a>.</li>
<li>Créer un compte : <a href="/compte/inscription">inscription</a>.</li>
<li>Déconnecter un assistant IA : <a href="/compte/acces-ia">Accès IA</a>.</li>
<li>Vos données : <a href="${LEGAL_PATHS.privacy}">politique de confidentialité</a>.</li>
</ul>`;
}

export function legalPages(settings: LegalSettings): Record<keyof typeof LEGAL_PATHS, Middleware> {
  const serve = (title: string, body: string): Middleware => {
    const text = page(title, body, true);
    return async (ctx) => {
      ctx.type = 'html';
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.body = text;
    };
  };
  return {
    privacy: serve('Politique de confidentialité', privacyHtml(settings)),
    terms: serve('Conditions d’utilisation', termsHtml(settings)),
    notice: serve('Mentions légales', noticeHtml(settings)),
    support: serve('Assistance', supportHtml(settings)),
  };
}
