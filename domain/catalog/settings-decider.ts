import type { Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/errors.ts';
import { sameContent } from '../shared/canonical.ts';
import type { ProposalSettingsSaved } from './events.ts';
import { CatalogMessages } from './messages.ts';
import { DEFAULT_PROPOSAL_SETTINGS, isValidSla, type ProposalSettings } from './settings.ts';

export type SaveProposalSettings = {
  organizationId: string;
  userId: string;
  settings: ProposalSettings;
  at: string;
  /** Whether settings.defaultPortfolioId names an enabled portfolio of the organization (the caller reads it). */
  defaultPortfolioUsable: boolean;
};

/** One stream per organization; a save replaces every setting. */
export const proposalSettingsDecider: Decider<SaveProposalSettings, ProposalSettingsSaved, ProposalSettings> = {
  initialState: () => DEFAULT_PROPOSAL_SETTINGS,
  evolve: (_state, event) => event.data.settings,
  decide(command, state) {
    const { organizationId, userId, settings, at } = command;
    if (!isValidSla(settings.dashboardSla)) throw new DomainError('invalid', CatalogMessages.slaFormat);
    if (settings.defaultPortfolioId !== null && !command.defaultPortfolioUsable) throw new DomainError('invalid', CatalogMessages.defaultPortfolioInvalid);
    if (sameContent(settings, state)) return [];
    return [{ type: 'ProposalSettingsSaved', data: { organizationId, userId, settings, at } }];
  },
};
