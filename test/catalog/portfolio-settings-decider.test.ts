import { suite } from 'uvu';
import type { PortfolioSaved, ProposalSettingsSaved } from '../../domain/catalog/events.ts';
import { CatalogMessages as M } from '../../domain/catalog/messages.ts';
import { portfolioDecider } from '../../domain/catalog/portfolio-decider.ts';
import type { PortfolioContent } from '../../domain/catalog/product.ts';
import { proposalSettingsDecider } from '../../domain/catalog/settings-decider.ts';
import { DEFAULT_PROPOSAL_SETTINGS, type ProposalSettings } from '../../domain/catalog/settings.ts';
import { given } from '../support/decider.ts';

const test = suite('portfolio and proposal settings deciders');
const ORG = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const ID = 'bbbbbbbbbbbbbbbbbbbbbbbb';
const at = '2026-11-23T12:00:00.000Z';
const varejo: PortfolioContent = { name: 'Varejo', description: null, enabled: true };
const command = (type: 'CreatePortfolio' | 'UpdatePortfolio', content: PortfolioContent, organizationId = ORG) => ({ type, portfolioId: ID, organizationId, userId: 'u1', content, at });
const saved = (content: PortfolioContent): PortfolioSaved => ({ type: 'PortfolioSaved', data: { portfolioId: ID, organizationId: ORG, content, userId: 'u1', at } });

test('portfolio: create, update, disable, enable; unchanged is no event', () => {
  given(portfolioDecider)
    .when(command('CreatePortfolio', varejo))
    .then([saved(varejo)]);
  const disabled = { ...varejo, enabled: false };
  given(portfolioDecider, [saved(varejo)])
    .when(command('UpdatePortfolio', disabled))
    .then([saved(disabled)]);
  given(portfolioDecider, [saved(varejo), saved(disabled)])
    .when(command('UpdatePortfolio', varejo))
    .then([saved(varejo)]);
  given(portfolioDecider, [saved(varejo)])
    .when(command('UpdatePortfolio', { ...varejo }))
    .then([]);
});

test('portfolio refusals: create twice, update absent or of another tenant', () => {
  given(portfolioDecider, [saved(varejo)])
    .when(command('CreatePortfolio', varejo))
    .thenError('conflict', M.recordExists);
  given(portfolioDecider).when(command('UpdatePortfolio', varejo)).thenError('not_found', M.portfolioNotFound);
  given(portfolioDecider, [saved(varejo)])
    .when(command('UpdatePortfolio', varejo, 'cccccccccccccccccccccccc'))
    .thenError('not_found', M.portfolioNotFound);
});

const save = (settings: ProposalSettings, defaultPortfolioUsable = false) => ({ organizationId: ORG, userId: 'u1', settings, at, defaultPortfolioUsable });
const settingsSaved = (settings: ProposalSettings): ProposalSettingsSaved => ({ type: 'ProposalSettingsSaved', data: { organizationId: ORG, userId: 'u1', settings, at } });
const custom = { ...DEFAULT_PROPOSAL_SETTINGS, firmOfferValidityDays: 10, dashboardSla: 'DRAFT:3,WAITING_CUSTOMER:10' };

test('settings: a change is saved; the defaults or the same settings again are no event', () => {
  given(proposalSettingsDecider)
    .when(save(custom))
    .then([settingsSaved(custom)]);
  given(proposalSettingsDecider).when(save(DEFAULT_PROPOSAL_SETTINGS)).then([]);
  given(proposalSettingsDecider, [settingsSaved(custom)])
    .when(save({ ...custom }))
    .then([]);
  given(proposalSettingsDecider, [settingsSaved(custom)])
    .when(save(DEFAULT_PROPOSAL_SETTINGS))
    .then([settingsSaved(DEFAULT_PROPOSAL_SETTINGS)]);
  const withPortfolio = { ...custom, defaultPortfolioId: ID };
  given(proposalSettingsDecider)
    .when(save(withPortfolio, true))
    .then([settingsSaved(withPortfolio)]);
});

test('settings refusals: malformed or repeated sla, unusable default portfolio', () => {
  for (const sla of ['', 'DRAFT', 'DRAFT:1000', 'CLOSED:1', 'DRAFT:1,DRAFT:2', 'draft:1', 'DRAFT:1,']) {
    given(proposalSettingsDecider)
      .when(save({ ...custom, dashboardSla: sla }))
      .thenError('invalid', M.slaFormat);
  }
  given(proposalSettingsDecider)
    .when(save({ ...custom, defaultPortfolioId: ID }, false))
    .thenError('invalid', M.defaultPortfolioInvalid);
});

test.run();
