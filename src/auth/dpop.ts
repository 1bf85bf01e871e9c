// DPoP proofs on the resource side (RFC 9449 §4.3, §7): the proof that the caller holds
// the private key a DPoP-bound token was issued for. The JWS checks are jose's (the same
// calls oidc-provider makes for its own endpoints); replay is the caller's (store/dpop-proofs.ts).
import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, EmbeddedJWK, jwtVerify, type JWK, type JWTPayload } from 'jose';

/** Asymmetric algorithms only; the authorization server accepts the same (provider.ts). */
export const DPOP_ALGS = ['ES256', 'Ed25519', 'EdDSA'] as const;
/** How far a proof's `iat` may be from now, either way (oidc-provider's own window). */
export const DPOP_PROOF_WINDOW_SECONDS = 300;

export class DpopProofError extends Error {}

export interface ProofExpectations {
  /** The request's method, as `htm` must say. */
  method: string;
  /** The request's URL without query or fragment, as `htu` must say. */
  url: string;
  accessToken: string;
  /** The token's `cnf.jkt`: the SHA-256 thumbprint of the key it is bound to. */
  jkt: string;
  nowSeconds: number;
}

/** The proof's `jti` and `iat` once every check passed; a DpopProofError (French reason) otherwise. */
export async function verifyDpopProof(proof: string, expected: ProofExpectations): Promise<{ jti: string; iat: number }> {
  let payload: JWTPayload;
  let jwk: JWK | undefined;
  try {
    const verified = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: [...DPOP_ALGS], currentDate: new Date(expected.nowSeconds * 1000) });
    payload = verified.payload;
    jwk = verified.protectedHeader.jwk;
  } catch {
    throw new DpopProofError(`Preuve DPoP invalide : JWT de type dpop+jwt signé (${DPOP_ALGS.join(', ')}) par la clé publique de son en-tête jwk attendu.`);
  }
  const { jti, iat, htm, htu, ath } = payload as JWTPayload & { htm?: unknown; htu?: unknown; ath?: unknown };
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256) throw new DpopProofError('Preuve DPoP invalide : identifiant jti absent ou trop long.');
  if (typeof iat !== 'number' || Math.abs(expected.nowSeconds - iat) > DPOP_PROOF_WINDOW_SECONDS) {
    throw new DpopProofError(`Preuve DPoP invalide : iat absent ou écarté de plus de ${DPOP_PROOF_WINDOW_SECONDS} secondes de l’heure du service.`);
  }
  if (htm !== expected.method) throw new DpopProofError('Preuve DPoP invalide : htm ne correspond pas à la méthode de la requête.');
  const actualUrl = typeof htu === 'string' ? withoutQuery(htu) : null;
  if (actualUrl === null || actualUrl !== withoutQuery(expected.url)) {
    throw new DpopProofError('Preuve DPoP invalide : htu ne correspond pas à l’adresse de la requête.');
  }
  if (ath !== createHash('sha256').update(expected.accessToken).digest('base64url')) {
    throw new DpopProofError('Preuve DPoP invalide : ath ne correspond pas au jeton d’accès envoyé.');
  }
  if (!jwk || (await calculateJwkThumbprint(jwk, 'sha256')) !== expected.jkt) {
    throw new DpopProofError('Preuve DPoP invalide : la clé de la preuve n’est pas celle à laquelle le jeton est lié.');
  }
  return { jti, iat };
}

/** RFC 9449 §4.3: `htu` compared without query and fragment, after URL normalisation (case, default port). */
function withoutQuery(value: string): string | null {
  const url = URL.parse(value);
  if (!url) return null;
  url.search = '';
  url.hash = '';
  return url.href;
}
