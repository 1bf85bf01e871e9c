// withVersionSentence ends an operation's description with one paragraph « Version du contrat : X.Y.Z. », the text before it kept, and a final line break.
import { expect } from 'chai';
import { withVersionSentence } from '../../../scripts/generator/version-sentence.js';

interface Case {
  name: string;
  given: { description: string | undefined; version: string };
  want: string;
}

const cases: Case[] = [
  {
    name: 'a YAML block description (one final line break) gets a blank line, then the sentence',
    given: { description: 'Crée une note.\n', version: '3.0.0' },
    want: 'Crée une note.\n\nVersion du contrat : 3.0.0.\n',
  },
  {
    name: 'a description without final line break gets the same',
    given: { description: 'Crée une note.', version: '3.0.0' },
    want: 'Crée une note.\n\nVersion du contrat : 3.0.0.\n',
  },
  {
    name: 'trailing blank lines and spaces are dropped first',
    given: { description: 'Crée une note.  \n\n\n', version: '3.0.0' },
    want: 'Crée une note.\n\nVersion du contrat : 3.0.0.\n',
  },
  {
    name: 'inner paragraphs, line breaks and leading spaces are kept',
    given: { description: '  Crée une note,\nen brouillon.\n\nRéservé aux abonnés.\n', version: '3.0.0' },
    want: '  Crée une note,\nen brouillon.\n\nRéservé aux abonnés.\n\nVersion du contrat : 3.0.0.\n',
  },
  { name: 'the version is copied as given', given: { description: 'Lit.\n', version: '4.1.2' }, want: 'Lit.\n\nVersion du contrat : 4.1.2.\n' },
  { name: 'a missing description becomes the sentence alone', given: { description: undefined, version: '3.0.0' }, want: 'Version du contrat : 3.0.0.\n' },
  { name: 'a blank description becomes the sentence alone', given: { description: ' \n\n', version: '3.0.0' }, want: 'Version du contrat : 3.0.0.\n' },
  {
    name: 'a sentence already there is not detected here (checkContract refuses the double)',
    given: { description: 'Lit.\n\nVersion du contrat : 3.0.0.\n', version: '3.0.0' },
    want: 'Lit.\n\nVersion du contrat : 3.0.0.\n\nVersion du contrat : 3.0.0.\n',
  },
];

describe('withVersionSentence', () => {
  for (const c of cases) it(c.name, () => expect(withVersionSentence(c.given.description, c.given.version)).to.equal(c.want));
});
