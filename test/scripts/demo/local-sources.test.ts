// Demo council minutes, posts and contacts are JSON lines in our formats of the contract, deterministic, on demo communes and companies, and the contacts carry the contact details the import must drop.
import { expect } from 'chai';
import { importFormat } from '../../../src/contract/formats.js';
import { withoutContactDetails } from '../../../src/import/contact-details.js';
import { formatValidator } from '../../../src/import/line-schema.js';
import { CONTACT_KEYS } from '../../../src/domains/contacts/import-contacts.js';
import { COMMUNES } from '../../../scripts/demo/communes.js';
import { DEMO_FILES, SCALES } from '../../../scripts/demo/index.js';
import { readDemo, smallDemo, TODAY } from './fixture.js';

const parse = (text: string) => text.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
const CODES = new Set([...COMMUNES.map((c) => c.code), ...COMMUNES.flatMap((c) => (c.ville ? [c.ville.code] : []))]);

function conforming(format: string, lines: Record<string, unknown>[], contactKeys: ReadonlySet<string>): void {
  const schema = importFormat(format) as { properties: Record<string, unknown> };
  const validate = formatValidator(schema);
  const keys = { contactKeys, knownKeys: new Set(Object.keys(schema.properties)), textKeys: new Set<string>() };
  for (const line of lines) expect(validate(withoutContactDetails(line, keys).record), JSON.stringify(line)).to.equal(null);
}

describe('demo data: local sources', function () {
  this.timeout(60000);

  it('writes the sizes of the scale, counted', async () => {
    const r = await smallDemo();
    expect(r.counts).to.include({ deliberations: SCALES.small.deliberations, publications: SCALES.small.publications, contacts: SCALES.small.contacts });
    for (const source of ['deliberations', 'publications', 'contacts']) expect(r.files.find((f) => f.source === source)?.rows).to.be.greaterThan(900);
  });

  it('writes council minutes in the DeliberationLine format, on demo communes, before today, about public works', async () => {
    const lines = parse(await readDemo(DEMO_FILES.deliberations));
    expect(lines).to.have.length(1000);
    conforming('DeliberationLine', lines, new Set(['url']));
    expect(new Set(lines.map((l) => l.id)).size).to.equal(lines.length);
    for (const l of lines) {
      expect(CODES.has(l.commune as string), String(l.commune)).to.equal(true);
      expect(l.date_seance as string < TODAY).to.equal(true);
    }
    const text = lines.map((l) => `${l.titre} ${l.texte}`).join(' ').toLowerCase();
    for (const word of ['voirie', 'école', 'toiture', 'marché de travaux']) expect(text).to.include(word);
    expect(lines.filter((l) => l.url).length).to.be.greaterThan(300);
    expect(lines.filter((l) => /@/.test(l.texte as string)).length).to.be.greaterThan(20);
  });

  it('writes posts in the PublicationLine format, every network present, each with its link', async () => {
    const lines = parse(await readDemo(DEMO_FILES.publications));
    expect(lines).to.have.length(2000);
    conforming('PublicationLine', lines, new Set(['lien']));
    expect(new Set(lines.map((l) => l.reseau))).to.have.property('size', 8);
    expect(lines.every((l) => typeof l.lien === 'string')).to.equal(true);
  });

  it('writes contacts in the ContactLine format, each with a telephone, most with an e-mail, some with a profile under another key', async () => {
    const lines = parse(await readDemo(DEMO_FILES.contacts));
    expect(lines).to.have.length(1500);
    conforming('ContactLine', lines, CONTACT_KEYS);
    expect(lines.every((l) => typeof l.telephone === 'string')).to.equal(true);
    expect(lines.filter((l) => l.email).length).to.be.greaterThan(900);
    expect(lines.filter((l) => l.linkedin).length).to.be.greaterThan(20);
    expect(lines.every((l) => /^\d{14}$/.test(l.organisation_siret as string))).to.equal(true);
  });
});
