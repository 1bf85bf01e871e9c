// The brand report's printable page reads as French sentences and tables, escapes every value, shows the company's officers, accounts and proceedings as its page does, and says plainly what is missing.
import { expect } from 'chai';
import { brandReportPage, type BrandReport } from '../../src/http/brand-report-page.js';

function report(fields: Partial<BrandReport['fields']> = {}): BrandReport {
  return {
    id: '184200012',
    titre: 'Rapport de marque — Charpentes <du> Léon & fils',
    resume: '0 marché gagné.',
    fields: {
      siren: '184200012',
      raison_sociale: 'Charpentes <du> Léon & fils',
      periode: { debut: null, fin: null },
      marches_gagnes: 0,
      montant_total: 0,
      tronque: false,
      par_annee: [],
      acheteurs: [],
      familles_cpv: [],
      departements: [],
      series: [],
      parts: [],
      rge_domaines: [],
      capital_social_eur: null,
      dirigeants: [],
      evolution_ca: [],
      procedures_collectives: [],
      url: 'http://127.0.0.1/rapports/marque/184200012',
      ...fields,
    },
  };
}

describe('brand report page', () => {
  it('says plainly what is missing for a company without wins nor register data', () => {
    const html = brandReportPage(report());
    expect(html).to.include('<h1>Rapport de marque — Charpentes &lt;du&gt; Léon &amp; fils</h1>');
    expect(html).to.include('Aucun marché gagné connu').and.include('Aucune certification RGE en cours').and.include('Aucun dirigeant connu').and.include('Aucun compte annuel publié connu');
    expect(html).to.include('Aucune procédure collective publiée');
    expect(html).to.not.include('<table class="rapport">');
  });

  it('lays out wins, buyers, markets, shares, officers, accounts and proceedings, every value escaped', () => {
    const html = brandReportPage(
      report({
        periode: { debut: '2021-04-01', fin: '2025-09-01' },
        marches_gagnes: 2,
        montant_total: 120000,
        tronque: true,
        par_annee: [
          { annee: 2021, nombre: 1, montant_total: 20000 },
          { annee: 2022, nombre: 1, montant_total: 100000 },
        ],
        acheteurs: [
          { acheteur_id: '21290232000014', nom: 'Commune <de> Quimper', nombre: 1, montant_total: 100000 },
          { acheteur_id: null, nom: null, nombre: 1, montant_total: 20000 },
        ],
        familles_cpv: [{ famille: '452', libelle: 'Travaux <complets>', nombre: 2, montant_total: 120000 }],
        departements: [{ departement: '29', nombre: 2, montant_total: 120000 }],
        series: [{ debut: 2021, fin: 2022, annees: 2 }],
        parts: [{ famille: '452', departement: '29', gagnes: 2, attributions: 3, part: 0.6667 }],
        rge_domaines: ['Isolation <combles>'],
        capital_social_eur: 37000,
        dirigeants: [{ type: 'personne_physique', nom: 'KERDRAON', prenoms: 'Yannick <Marie>', qualite: 'Gérant', annee_naissance: 1970, siren: null, denomination: null, url: null }],
        evolution_ca: [
          { exercice: '2024-12-31', duree_mois: 12, type_bilan: 'S', comptes_confidentiels: false, chiffre_affaires: 1500000, resultat_net: -85000, marge_brute: null, ebe: null, variation_ca_pct: 25 },
          { exercice: '2023-12-31', duree_mois: null, type_bilan: 'S', comptes_confidentiels: false, chiffre_affaires: 1200000, resultat_net: 42000, marge_brute: null, ebe: null, variation_ca_pct: null },
        ],
        procedures_collectives: [
          { annonce_id: 'A2026<1>', date_parution: '2026-03-10', famille: 'collective', nature: 'Jugement d’ouverture', date_jugement: '2026-03-03', tribunal: 'Tribunal <de> Brest', url: 'http://127.0.0.1/bodacc/A2026' },
        ],
      }),
    );
    expect(html).to.match(/<strong>2 marchés gagnés<\/strong> notifiés entre le 01\/04\/2021 et le 01\/09\/2025, pour <strong>120\s000 €<\/strong>/u);
    expect(html).to.include('le rapport porte sur les 20 000 plus récents');
    expect(html).to.include('<a href="/acheteurs/21290232000014">Commune &lt;de&gt; Quimper</a>').and.include('Acheteur sans nom publié');
    expect(html).to.include('Travaux &lt;complets&gt;').and.include('Isolation &lt;combles&gt;').and.include('Tribunal &lt;de&gt; Brest');
    expect(html).to.include('<li>2021 à 2022 (2 années)</li>');
    expect(html).to.include('<td class="nombre">66,7 %</td>');
    expect(html).to.include('KERDRAON Yannick &lt;Marie&gt;</strong>, Gérant, né(e) en 1970');
    expect(html).to.match(/Capital social : <strong>37\s000 €<\/strong>/u);
    expect(html.match(/<rect class="barre/g)).to.have.length(4);
    expect(html).to.include('href="/bodacc/A2026%3C1%3E"');
    for (const raw of ['<du>', '<de>', '<Marie>', '<complets>', '<combles>', '<1>']) expect(html).to.not.include(raw);
  });
});
