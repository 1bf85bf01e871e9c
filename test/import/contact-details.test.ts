// No contact detail survives an import: telephone numbers, e-mails and web addresses are masked in texts, dropped with their key, and counted.
import { expect } from 'chai';
import { holdsContactDetail, maskContactDetails, MASK, withoutContactDetails } from '../../src/import/contact-details.js';

describe('contact details', () => {
  it('masks French and international telephone numbers, e-mails and web addresses in a text, counting each', () => {
    const { text, masked } = maskContactDetails('Appeler le 02 98 98 89 89, le 06.12.34.56.78, le +33 (0)1 23 45 67 89 ou le 0298988989 ; écrire à a.b@quimper.bzh ; voir https://quimper.bzh/x et www.quimper.bzh.');
    expect(masked).to.equal(7);
    expect(text).to.equal(`Appeler le ${MASK}, le ${MASK}, le ${MASK} ou le ${MASK} ; écrire à ${MASK} ; voir ${MASK} et ${MASK}.`);
  });

  it('ends a web address before the punctuation of the sentence', () => {
    expect(maskContactDetails('Profil acheteur : https://www.marches-publics.gouv.fr, ou (www.achatpublic.com).').text).to.equal(`Profil acheteur : ${MASK}, ou (${MASK}).`);
  });

  it('leaves amounts, dates, SIRENs and ordinary words alone', () => {
    const text = 'Marché de 184 500 € HT notifié le 12/03/2026, SIREN 732829320, lot 02, séance n° 2026-045.';
    expect(maskContactDetails(text)).to.deep.equal({ text, masked: 0 });
    expect(holdsContactDetail(text)).to.equal(false);
  });

  it('drops the contact keys (counted when filled), other keys holding a contact detail, and masks the texts', () => {
    const keys = { contactKeys: new Set(['telephone', 'email']), knownKeys: new Set(['nom', 'telephone', 'email', 'note']), textKeys: new Set(['nom']) };
    const record = { nom: 'Anne (06 12 34 56 78)', telephone: '02 98 98 89 89', email: '', profil: 'https://www.linkedin.com/in/anne', fax: 298988989, note: 'voir www.x.fr', autre: 'rien' };
    const { record: out, dropped } = withoutContactDetails(record, keys);
    expect(out).to.deep.equal({ nom: `Anne (${MASK})`, note: 'voir www.x.fr', autre: 'rien' });
    expect(dropped).to.equal(4);
    expect(record.telephone).to.equal('02 98 98 89 89');
  });
});
