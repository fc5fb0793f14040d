import type { PortfolioContent, ProductContent } from '../../domain/catalog/product.ts';
import { DEFAULT_PROPOSAL_SETTINGS } from '../../domain/catalog/settings.ts';
import type { DemoSeeder } from '../demo.ts';
import { createPortfolio, createProduct, saveProposalSettings } from './commands.ts';

const credit: Pick<ProductContent, 'enabled' | 'fixedAmountCents' | 'defaultOperationId' | 'collectionTemplateSlugs'> = {
  enabled: true,
  fixedAmountCents: null,
  defaultOperationId: null,
  collectionTemplateSlugs: [],
};
const tac = (amountCents: number) => ({ key: 'tac', name: 'Tarifa de cadastro', amountCents, financed: true });

/** A small lender's catalog: one product of each kind, priced as the Brazilian market prices them. */
export const DEMO_PRODUCTS: ProductContent[] = [
  {
    ...credit,
    key: 'capital-de-giro',
    name: 'Capital de giro',
    kind: 'FINANCING',
    entityTypes: ['COMPANY'],
    minAmountCents: 5_000_000,
    maxAmountCents: 50_000_000,
    minTermMonths: 6,
    maxTermMonths: 36,
    pricing: {
      model: 'PRICE',
      rate: { kind: 'INDEXED', index: 'CDI', spreadBpsYear: 600, spread: { value: '6', period: 'YEAR' } },
      fees: [tac(50_000)],
      iof: { applies: true, financed: true },
      moveDueDatesToBusinessDay: true,
    },
  },
  {
    ...credit,
    key: 'capital-de-giro-prefixado',
    name: 'Capital de giro prefixado',
    kind: 'FINANCING',
    entityTypes: ['COMPANY'],
    minAmountCents: 2_000_000,
    maxAmountCents: 30_000_000,
    minTermMonths: 3,
    maxTermMonths: 24,
    pricing: {
      model: 'PRICE',
      rate: { kind: 'FIXED', rateBpsYear: 2505, rate: { value: '1.88', period: 'MONTH' } },
      fees: [tac(30_000)],
      iof: { applies: true, financed: true },
      moveDueDatesToBusinessDay: true,
    },
  },
  {
    ...credit,
    key: 'credito-pessoal',
    name: 'Crédito pessoal',
    kind: 'FINANCING',
    entityTypes: ['PERSON'],
    minAmountCents: 100_000,
    maxAmountCents: 5_000_000,
    minTermMonths: 3,
    maxTermMonths: 36,
    pricing: {
      model: 'PRICE',
      rate: { kind: 'FIXED', rateBpsYear: 2682, rate: { value: '2', period: 'MONTH' } },
      fees: [tac(15_000)],
      iof: { applies: true, financed: true },
      moveDueDatesToBusinessDay: true,
    },
  },
  {
    ...credit,
    key: 'crediario',
    name: 'Crediário',
    kind: 'INSTALLMENT_SALE',
    entityTypes: ['PERSON'],
    minAmountCents: 20_000,
    maxAmountCents: 1_000_000,
    minTermMonths: 2,
    maxTermMonths: 12,
    pricing: {
      model: 'SAC',
      rate: { kind: 'FIXED', rateBpsYear: 5111, rate: { value: '3.5', period: 'MONTH' } },
      fees: [],
      iof: { applies: true, financed: false },
      moveDueDatesToBusinessDay: false,
    },
  },
  {
    ...credit,
    key: 'cadastro-kyc',
    name: 'Cadastro e verificação (KYC)',
    kind: 'KYC',
    entityTypes: ['PERSON', 'COMPANY'],
    minAmountCents: null,
    maxAmountCents: null,
    minTermMonths: null,
    maxTermMonths: null,
    pricing: null,
  },
];

export const DEMO_PORTFOLIOS: PortfolioContent[] = [
  { name: 'Varejo', description: 'Pessoas físicas: crédito pessoal e crediário', enabled: true },
  { name: 'Empresas', description: 'Pequenas e médias empresas', enabled: true },
  { name: 'Correspondentes', description: 'Propostas trazidas por correspondentes bancários', enabled: true },
];

/** `provision --demo`: the catalog above, its portfolios, and settings whose default portfolio is Varejo. */
export const catalogDemoSeeder: DemoSeeder = {
  name: 'catalog',
  async seed(app, tenant) {
    const products = [];
    for (const content of DEMO_PRODUCTS) {
      const { state } = await createProduct(app, tenant.principal, content);
      products.push({ id: state.product!.productId, key: content.key });
    }
    const portfolios = [];
    for (const content of DEMO_PORTFOLIOS) {
      const { state } = await createPortfolio(app, tenant.principal, content);
      portfolios.push({ id: state.portfolio!.portfolioId, name: content.name });
    }
    const lenderDisplayName = 'Crédito Demo';
    await saveProposalSettings(app, tenant.principal, {
      ...DEFAULT_PROPOSAL_SETTINGS,
      defaultPortfolioId: portfolios[0]!.id,
      publicPage: { lenderDisplayName, supportEmail: 'atendimento@credito-demo.com.br', supportPhone: '+55 11 4000-0000' },
    });
    return { products, portfolios };
  },
};
