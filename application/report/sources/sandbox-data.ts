import type { SourceSectionType } from '../../../domain/report/sections.ts';
import type { TaxDocument } from '../../../domain/shared/document.ts';
import { yearsBetween } from './dates.ts';
import type { SandboxBehaviour } from './sandbox-documents.ts';

/**
 * Plausible, deterministic section data for the sandbox: the same document always gets the same
 * person or company (names, address, figures come from a generator seeded by the document), and
 * the test documents' behaviours add the facts that make the demo policies decide as documented.
 */

type Random = () => number;

/** mulberry32 over an FNV-1a hash of the seed text: small, fast, deterministic. */
function randomFrom(seed: string): Random {
  let h = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 0x01000193);
  let state = h >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
const between = (random: Random, min: number, max: number) => min + Math.floor(random() * (max - min + 1));

const FIRST_NAMES = ['Ana', 'Bruno', 'Carla', 'Diego', 'Eduarda', 'Felipe', 'Gabriela', 'Henrique', 'Isabela', 'João', 'Larissa', 'Marcos', 'Natália', 'Otávio', 'Patrícia', 'Rafael'];
const LAST_NAMES = ['Silva', 'Santos', 'Oliveira', 'Souza', 'Rodrigues', 'Ferreira', 'Alves', 'Pereira', 'Lima', 'Gomes', 'Costa', 'Ribeiro', 'Martins', 'Carvalho'];
const COMPANY_WORDS = ['Alfa', 'Horizonte', 'Serra Azul', 'Atlântica', 'Pioneira', 'Vale Verde', 'Aurora', 'Cerrado', 'Litoral', 'Planalto'];
const PLACES = [
  { city: 'São Paulo', state: 'SP', zip: '01310' },
  { city: 'Rio de Janeiro', state: 'RJ', zip: '20040' },
  { city: 'Belo Horizonte', state: 'MG', zip: '30130' },
  { city: 'Curitiba', state: 'PR', zip: '80010' },
  { city: 'Porto Alegre', state: 'RS', zip: '90010' },
  { city: 'Salvador', state: 'BA', zip: '40010' },
  { city: 'Recife', state: 'PE', zip: '50010' },
  { city: 'Goiânia', state: 'GO', zip: '74003' },
];
const STREETS = ['Rua das Flores', 'Avenida Brasil', 'Rua XV de Novembro', 'Avenida Paulista', 'Rua Sete de Setembro', 'Avenida Getúlio Vargas'];
const ACTIVITIES = [
  { code: '4711302', description: 'Comércio varejista de mercadorias em geral, com predominância de produtos alimentícios - supermercados', sector: 'COMÉRCIO', kind: 'Comércio de Alimentos' },
  { code: '4930202', description: 'Transporte rodoviário de carga, exceto produtos perigosos e mudanças, intermunicipal, interestadual e internacional', sector: 'TRANSPORTE', kind: 'Transportes' },
  { code: '6201501', description: 'Desenvolvimento de programas de computador sob encomenda', sector: 'TECNOLOGIA', kind: 'Tecnologia' },
  { code: '4120400', description: 'Construção de edifícios', sector: 'CONSTRUÇÃO', kind: 'Construções' },
  { code: '8630503', description: 'Atividade médica ambulatorial restrita a consultas', sector: 'SAÚDE', kind: 'Serviços Médicos' },
];

export interface SandboxInput {
  document: TaxDocument;
  behaviour: SandboxBehaviour;
  now: Date;
}

const isoDay = (date: Date) => date.toISOString().slice(0, 10);
const addDays = (date: Date, days: number) => new Date(date.getTime() + days * 86_400_000);

function personName(random: Random): string {
  return `${pick(random, FIRST_NAMES)} ${pick(random, LAST_NAMES)} ${pick(random, LAST_NAMES)}`;
}

/** Identity of the subject: shared by the sections that name it, so they agree. */
function subject(input: SandboxInput) {
  const random = randomFrom(input.document.digits);
  const activity = pick(random, ACTIVITIES);
  const word = pick(random, COMPANY_WORDS);
  return {
    random,
    activity,
    personName: personName(random),
    companyName: `${word} ${activity.kind} Ltda`,
    tradeName: `${word} ${activity.kind}`,
    birthDate: `${between(random, 1960, 1995)}-${String(between(random, 1, 12)).padStart(2, '0')}-${String(between(random, 1, 28)).padStart(2, '0')}`,
    foundedAt: `${between(random, 1995, 2018)}-${String(between(random, 1, 12)).padStart(2, '0')}-${String(between(random, 1, 28)).padStart(2, '0')}`,
    place: pick(random, PLACES),
  };
}

type Generator = (input: SandboxInput) => Record<string, unknown>;

const protestsOf = (input: SandboxInput, random: Random) => {
  const quantity = input.behaviour === 'DENY' ? 5 : 0;
  const { place } = subject(input);
  const protests = Array.from({ length: quantity }, (_, i) => ({
    notary: `${i + 1}º Tabelionato de Protesto de Títulos`,
    city: place.city,
    state: place.state,
    amountCents: between(random, 50_000, 900_000),
    date: isoDay(addDays(input.now, -between(random, 30, 700))),
  }));
  return { bureau: { protestsQuantity: quantity, protestsAmountCents: protests.reduce((s, p) => s + p.amountCents, 0), protests } };
};

/** Sections the sandbox makes up. Not SANCTIONS: it comes from the screening lists in every mode (application/report/sources/screening.ts). */
export type SandboxSectionType = Exclude<SourceSectionType, 'SANCTIONS'>;

const GENERATORS: Record<SandboxSectionType, Generator> = {
  BASIC_INFORMATION(input) {
    const s = subject(input);
    if (input.document.type === 'cpf') {
      return { name: s.personName, birthDate: s.birthDate, ageYears: yearsBetween(s.birthDate, input.now), registrationStatus: 'REGULAR', deceased: false, motherName: personName(s.random) };
    }
    return {
      name: s.companyName,
      tradeName: s.tradeName,
      foundedAt: s.foundedAt,
      companyAgeYears: yearsBetween(s.foundedAt, input.now),
      registrationStatus: 'ATIVA',
      legalNature: 'Sociedade Empresária Limitada',
      size: 'EMPRESA DE PEQUENO PORTE',
      shareCapitalCents: between(s.random, 10, 500) * 1_000_000,
      mainActivity: { code: s.activity.code, description: s.activity.description },
      partners: [{ name: personName(s.random), role: 'Sócio-Administrador' }],
    };
  },
  LOCATION(input) {
    const s = subject(input);
    return {
      street: pick(s.random, STREETS),
      number: String(between(s.random, 10, 2500)),
      complement: null,
      district: 'Centro',
      city: s.place.city,
      state: s.place.state,
      zipCode: `${s.place.zip}${String(between(s.random, 0, 999)).padStart(3, '0')}`,
      country: 'BR',
    };
  },
  PROTESTS: (input) => protestsOf(input, randomFrom(`${input.document.digits}:protests`)),
  PEFIN(input) {
    const random = randomFrom(`${input.document.digits}:pefin`);
    const records =
      input.behaviour === 'MANUAL_ANALYSIS' ? [{ creditor: 'Banco Exemplo S.A.', amountCents: between(random, 20_000, 300_000), date: isoDay(addDays(input.now, -between(random, 30, 300))) }] : [];
    return { count: records.length, totalAmountCents: records.reduce((s, r) => s + r.amountCents, 0), records };
  },
  SCR(input) {
    const random = randomFrom(`${input.document.digits}:scr`);
    const reference = new Date(Date.UTC(input.now.getUTCFullYear(), input.now.getUTCMonth() - 2, 1));
    return {
      referenceMonth: reference.toISOString().slice(0, 7),
      totalDebtCents: between(random, 0, 50_000) * 100,
      overdueCents: 0,
      lossCents: 0,
      institutionsCount: between(random, 0, 4),
      operationsCount: between(random, 0, 9),
    };
  },
  PROCESSES(input) {
    const random = randomFrom(`${input.document.digits}:processes`);
    const asPlaintiffCount = between(random, 0, 2);
    return { totalCount: asPlaintiffCount, asDefendantCount: 0, asPlaintiffCount, processes: [] };
  },
  CERTIFICATES(input) {
    const kinds = input.document.type === 'cnpj' ? ['FEDERAL_DEBT', 'LABOR_DEBT', 'FGTS'] : ['FEDERAL_DEBT', 'LABOR_DEBT'];
    const issuedAt = isoDay(addDays(input.now, -10));
    const validUntil = isoDay(addDays(input.now, 170));
    return { allClear: true, certificates: kinds.map((kind) => ({ kind, status: 'NEGATIVA', issuedAt, validUntil })) };
  },
  CATEGORIES(input) {
    const { activity } = subject(input);
    return { mainActivity: { code: activity.code, description: activity.description }, secondaryActivities: [], sector: activity.sector };
  },
  CRIMINAL_RECORD: () => ({ hasRecords: false, count: 0 }),
  MEDIA_EXPOSURE: () => ({ negativeMentions: 0, mentions: [] }),
  BALANCE_SHEET(input) {
    const random = randomFrom(`${input.document.digits}:balance`);
    const revenueCents = between(random, 500, 20_000) * 100_000;
    const totalAssetsCents = Math.round(revenueCents * 0.8);
    const equityCents = Math.round(totalAssetsCents * 0.45);
    return {
      referenceYear: input.now.getUTCFullYear() - 1,
      revenueCents,
      netIncomeCents: Math.round(revenueCents * 0.07),
      totalAssetsCents,
      totalLiabilitiesCents: totalAssetsCents - equityCents,
      equityCents,
    };
  },
};

export function sandboxDetails(sectionType: SandboxSectionType, input: SandboxInput): Record<string, unknown> {
  return GENERATORS[sectionType](input);
}
