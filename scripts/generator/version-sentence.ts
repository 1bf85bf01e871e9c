// Transform: an operation's description with the contract version as its last paragraph
// (« Version du contrat : X.Y.Z. »); the contract writes the description without it.

export const versionSentence = (version: string): string => `Version du contrat : ${version}.`;

/** Ends with a line break, as a YAML block (`|`) description does. */
export function withVersionSentence(description: string | undefined, version: string): string {
  const text = (description ?? '').trimEnd();
  return `${text ? `${text}\n\n` : ''}${versionSentence(version)}\n`;
}
