// The company page's HTML says plainly what is missing, escapes every value, draws only published years (below the zero line when negative, as published), and shows the record even when the awards could not be read.
import { expect } from 'chai';
import { accountsChart, companyPage, percent, type AwardRecord, type CompanyRecord } from '../../src/http/company-page.js';
import { companyRecordPage, type PageRecord } from '../../src/http/permalinks.js';
import { QuotaExceededError, UnavailableError } from '../../src/errors.js';

type Year = CompanyRecord['fields']['evolution_ca'][number];

function record(fields: Partial<CompanyRecord['fields']> = {}, id = '184200012'): CompanyRecord {
  return {
    id,
    titre: 'Entreprise 184200012',
    resume: 'Activité non renseignée — commune non renseignée — active.',
    fields: {
      adresse: null,
      categorie: null,
      code_naf: null,
      code_naf_2025: null,
      code_postal: null,
      date_creation: null,
      departement: null,
      effectif: null,
      etat: 'active',
      forme_juridique: null,
      libelle_naf: null,
      nomenclature_naf: null,
      nom_commercial: null,
      raison_sociale: null,
      rge_date_fin: null,
      siren: '184200012',
      siret: null,
      url: 'http://127.0.0.1/entreprises/184200012',
      ville: null,
      capital_social_eur: null,
      nombre_certifications_actives: 0,
      est_rge: false,
      raison_sociale_connue: false,
      source_identite: 'sirene',
      rge_domaines: [],
      dirigeants: [],
      evolution_ca: [],
      procedures_collectives: [],
      ...fields,
    },
  };
}

const year = (exercice: string, ca: number | null, rn: number | null, confidential = false): Year => ({
  exercice,
  duree_mois: 12,
  type_bilan: 'S',
  comptes_confidentiels: confidential,
  chiffre_affaires: confidential ? null : ca,
  resultat_net: confidential ? null : rn,
  marge_brute: null,
  ebe: null,
  variation_ca_pct: null,
});

const bars = (svg: string) => [...svg.matchAll(/<rect class="barre ([^"]+)" x="[\d.]+" y="([\d.]+)" width="\d+" height="([\d.]+)"/g)].map((m) => ({ cls: m[1] as string, y: Number(m[2]), h: Number(m[3]) }));
const zeroLine = (svg: string) => Number(/<line class="zero"[^>]*y1="([\d.]+)"/.exec(svg)?.[1]);

const NO_AWARDS = { read: true as const, records: [], more: false };

describe('company page (HTML)', () => {
  it('says plainly what is not known, section by section', () => {
    const html = companyPage(record(), NO_AWARDS);
    expect(html).to.include('<html lang="fr">').and.include('<h1>Entreprise 184200012</h1>');
    expect(html).to.include('Aucun dirigeant connu (registre non importé pour cette entreprise).');
    expect(html).to.include('Aucune certification RGE en cours.');
    expect(html).to.include('Capital social non connu');
    expect(html).to.include('Aucun compte annuel publié connu pour cette entreprise.').and.not.include('<svg');
    expect(html).to.include('Aucun marché attribué connu pour cette entreprise');
    expect(html).to.include('Aucune procédure collective publiée au BODACC');
    expect(html).to.include('<dt>Raison sociale</dt><dd><span class="muted">non diffusée ou pas encore importée</span></dd>');
    expect(html).to.include('<dt>Forme juridique</dt><dd><span class="muted">non renseigné</span></dd>');
  });

  it('escapes every value, in text and in addresses', () => {
    const hostile = '<img src=x onerror=alert(1)>"\'&';
    const escaped = '&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;';
    const html = companyPage(
      {
        ...record({
          raison_sociale: hostile,
          raison_sociale_connue: true,
          nom_commercial: hostile,
          adresse: hostile,
          libelle_naf: hostile,
          code_naf: '43.91B',
          nomenclature_naf: 'NAFRev2',
          est_rge: true,
          nombre_certifications_actives: 1,
          rge_domaines: [hostile],
          dirigeants: [
            { type: 'personne_physique', nom: hostile, prenoms: hostile, qualite: hostile, annee_naissance: 1970, siren: null, denomination: null, url: null },
            { type: 'personne_morale', nom: hostile, prenoms: null, qualite: hostile, annee_naissance: null, siren: '184200020', denomination: hostile, url: 'http://127.0.0.1/entreprises/184200020' },
          ],
          procedures_collectives: [{ annonce_id: 'A"1<', date_parution: '2026-03-10', famille: 'collective', nature: hostile, date_jugement: null, tribunal: hostile, url: 'http://127.0.0.1/bodacc/A1' }],
        }),
        titre: hostile,
        resume: hostile,
      },
      { read: true, records: [{ id: '21290232000014:X"<1', titre: hostile, resume: hostile, fields: { acheteur: hostile, montant: 1, date_notification: '2024-01-02' } as AwardRecord['fields'] }], more: false },
    );
    expect(html).to.not.include('<img');
    expect(html).to.include(`<h1>${escaped}</h1>`).and.include(`<title>${escaped}</title>`);
    expect(html.split(escaped).length - 1).to.be.greaterThan(12);
    expect(html).to.include('href="/attributions/21290232000014%3AX%22%3C1"').and.include('href="/bodacc/A%221%3C"');
  });

  it('gives an officer no more than the year of birth and links a company officer to its page', () => {
    const html = companyPage(
      record({
        dirigeants: [
          { type: 'personne_physique', nom: 'KERDRAON', prenoms: 'Yannick', qualite: 'Gérant', annee_naissance: 1970, siren: null, denomination: null, url: null },
          { type: 'personne_physique', nom: 'LE GALL', prenoms: null, qualite: 'Président', annee_naissance: null, siren: null, denomination: null, url: null },
          { type: 'personne_morale', nom: 'JPL', prenoms: null, qualite: 'Commissaire aux comptes titulaire', annee_naissance: null, siren: '184200020', denomination: 'JPL', url: null },
        ],
      }),
      NO_AWARDS,
    );
    expect(html).to.include('3 dirigeants en fonction');
    expect(html).to.include('<li><strong>KERDRAON Yannick</strong>, Gérant, né(e) en 1970</li>');
    expect(html).to.include('<li><strong>LE GALL</strong>, Président</li>');
    expect(html).to.include('<li><a href="/entreprises/184200020">JPL</a> (SIREN 184200020), Commissaire aux comptes titulaire, personne morale</li>');
  });

  it('names a legacy activity code with its own sentence, and the NAF 2025 code when given', () => {
    const legacy = 'Code 22.02 de l’ancienne nomenclature NAP (nomenclature d’activités et de produits, antérieure à 1993), pas un code NAF rév. 2';
    const html = companyPage(record({ code_naf: '22.02', nomenclature_naf: 'NAP', libelle_naf: legacy, code_naf_2025: '43.34Z' }), NO_AWARDS);
    expect(html).to.include(`<dd>${legacy}</dd>`).and.include('<dt>Code NAF 2025</dt><dd>43.34Z</dd>');
  });

  it('draws turnover and net result per published year, negative values under the zero line, confidential years undrawn, values as published', () => {
    // Newest first, as on the record; a net result larger than the turnover is kept as is.
    const svg = accountsChart([year('2025-12-31', null, null, true), year('2024-12-31', 100_000, 250_000), year('2023-12-31', 80_000, -40_000), year('2022-12-31', 0, null)]);
    const drawn = bars(svg);
    expect(drawn.map((b) => b.cls)).to.deep.equal(['barre-ca', 'barre-ca', 'barre-rn negatif', 'barre-ca', 'barre-rn']);
    const zero = zeroLine(svg);
    for (const b of drawn) {
      if (b.cls.includes('negatif')) expect(b.y, 'négatif : sous la ligne').to.equal(zero);
      else expect(b.y + b.h, 'positif : au-dessus de la ligne').to.be.closeTo(zero, 0.11);
    }
    // Heights in proportion: 250 000 is 2.5 times 100 000; a zero turnover is a hairline.
    const [zeroCa, ca2023, negative, ca2024, rn2024] = drawn as { h: number }[];
    expect((rn2024 as { h: number }).h / (ca2024 as { h: number }).h).to.be.closeTo(2.5, 0.01);
    expect((ca2023 as { h: number }).h / (negative as { h: number }).h).to.be.closeTo(2, 0.01);
    expect((zeroCa as { h: number }).h).to.equal(1);
    expect(svg).to.include('>confidentiels</text>').and.include('2025 : comptes confidentiels');
    expect(svg).to.include('<title>2024, résultat net : 250\u202f000 €</title>');
    expect(svg).to.match(/^<figure class="graphique"><svg [^>]*role="img" aria-label="Chiffre d’affaires et résultat net par exercice, 2022 : /);
    // Years left to right, oldest first.
    expect([...svg.matchAll(/>(\d{4})<\/text>/g)].map((m) => m[1])).to.deep.equal(['2022', '2023', '2024', '2025']);
  });

  it('draws nothing when no year has a published amount, and an all-negative year below the line', () => {
    expect(accountsChart([year('2025-12-31', null, null, true)])).to.equal('');
    const svg = accountsChart([year('2024-12-31', -5000, -9000)]);
    const zero = zeroLine(svg);
    expect(bars(svg).every((b) => b.y === zero && b.h > 0)).to.equal(true);
  });

  it('writes variations and amounts the French way', () => {
    expect([percent(25), percent(-99.1), percent(0), percent(26.3)]).to.deep.equal(['+25 %', '−99,1 %', '0 %', '+26,3 %']);
    const html = companyPage(record({ capital_social_eur: 37000, evolution_ca: [{ ...year('2024-12-31', 1_500_000, 95_000), variation_ca_pct: -4.5, duree_mois: 18 }] }), NO_AWARDS);
    expect(html).to.include('Capital social : <strong>37\u202f000 €</strong>');
    expect(html).to.include('<th scope="row">31/12/2024 <span class="muted">(18 mois)</span></th><td class="nombre">1\u202f500\u202f000 €</td><td class="nombre">95\u202f000 €</td><td class="nombre">−4,5 %</td>');
  });

  it('says when the awards could not be read, and counts the most recent ones when there are more', () => {
    const refused = companyPage(record(), { read: false, reason: 'Quota dépassé.' });
    expect(refused).to.include('<p class="error">Les marchés remportés n’ont pas pu être lus : Quota dépassé.</p>').and.include('href="/rapports/marque/184200012"');
    const award = (n: number): AwardRecord => ({ id: `b:${n}`, titre: `Marché ${n}`, resume: '', fields: { acheteur: null, montant: null, date_notification: null } as unknown as AwardRecord['fields'] });
    const many = companyPage(record(), { read: true, records: [award(1), award(2)], more: true });
    expect(many).to.include('Les 2 plus récents marchés attribués à cette entreprise');
    expect(many.match(/href="\/attributions\//g)).to.have.length(2);
  });
});

describe('company page (its reads)', () => {
  const asPage = (r: CompanyRecord) => r as unknown as PageRecord;

  it('asks for the 10 most recent awards of the page’s SIREN or SIRET', async () => {
    const asked: [string, Record<string, unknown>][] = [];
    const read = async (operation: string, args: Record<string, unknown>) => {
      asked.push([operation, args]);
      return { results: [], next_cursor: null };
    };
    await companyRecordPage(asPage(record()), read);
    await companyRecordPage(asPage(record({ siret: '18420001200013' }, '18420001200013')), read);
    expect(asked).to.deep.equal([
      ['attributions.search', { titulaire: '184200012', limit: 10 }],
      ['attributions.search', { titulaire: '18420001200013', limit: 10 }],
    ]);
  });

  it('shows the record with the refusal’s French message when the awards read is refused', async () => {
    const refusal = new QuotaExceededError('Quota d’appels par minute atteint : réessayer dans 30 secondes.', 30);
    const html = await companyRecordPage(asPage(record()), async () => {
      throw refusal;
    });
    expect(html).to.include('<h1>Entreprise 184200012</h1>').and.include(`n’ont pas pu être lus : ${refusal.message.replace(/'/g, '&#39;')}`);
    const unexpected = await companyRecordPage(asPage(record()), async () => {
      throw new Error('SQLITE_BUSY: /var/lib/db.sqlite');
    });
    expect(unexpected).to.include(`n’ont pas pu être lus : ${new UnavailableError().message.replace(/'/g, '&#39;')}`);
    expect(unexpected).to.not.include('SQLITE').and.not.include('/var/lib');
  });
});
