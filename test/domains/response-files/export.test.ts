// An export link is good only as signed, until its expiry, and never as a consultation file's link; the zip's paths keep one folder per item in the checklist's order and never collide.
import { expect } from 'chai';
import { signLink } from '../../../src/domains/dce/links.js';
import { safeName, signExportLink, verifyExportLink, zipPaths } from '../../../src/domains/response-files/export.js';
import type { DocumentRecord, ResponseFileRecord } from '../../../src/domains/response-files/store.js';

const KEY = 'une-clé-de-liens-assez-longue';
const link = { account: 'a1', organisation: 'o1', file: 'f1', expires: 2_000_000_000 };

describe('response files: export links and zip paths', () => {
  it('verifies its own signature until the expiry, and refuses a tampered one or a DCE link signed with the same key', () => {
    const token = signExportLink(KEY, link);
    expect(verifyExportLink(KEY, token, 1_999_999_999_000)).to.deep.equal(link);
    expect(verifyExportLink(KEY, token, 2_000_000_000_000)).to.equal('expired');
    expect(verifyExportLink('une-autre-clé-de-liens-longue', token, 0)).to.equal('forged');
    const [body, mac] = token.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify(['a2', 'o1', 'f1', 2_000_000_000])).toString('base64url');
    expect(verifyExportLink(KEY, `${forged}.${mac}`, 0)).to.equal('forged');
    expect(verifyExportLink(KEY, `${body}.${mac}.x`, 0)).to.equal('forged');
    expect(verifyExportLink(KEY, signLink(KEY, { account: 'a1', dce: 'f1', piece: null, expires: 2_000_000_000 }), 0)).to.equal('forged');
  });

  it('puts documents in one folder per item, in the checklist order, numbering a name met twice', () => {
    const item = (id: string, label: string) => ({ id, label, code: null, status: 'a_fournir' as const, origin: { kind: 'ajout' as const, piece: null, page: null, excerpt: null } });
    const file = { items: [item('p2', 'Kbis / extrait'), item('p1', 'RIB')] } as ResponseFileRecord;
    const doc = (id: string, itemId: string, filename: string, seq: number) => ({ id, itemId, filename, seq }) as DocumentRecord;
    const paths = zipPaths(file, [doc('d1', 'p1', 'rib.pdf', 1), doc('d2', 'p2', 'kbis.pdf', 2), doc('d3', 'p2', 'KBIS.pdf', 3), doc('d4', 'p9', 'orphelin.pdf', 4)]);
    expect([...paths.entries()]).to.deep.equal([
      ['d2', '01 Kbis extrait/kbis.pdf'],
      ['d3', '01 Kbis extrait/KBIS (2).pdf'],
      ['d1', '02 RIB/rib.pdf'],
    ]);
    expect(safeName('../../etc/passwd', 'x')).to.equal('etc passwd');
    expect(safeName('\u0000\u0001', 'document')).to.equal('document');
  });
});
