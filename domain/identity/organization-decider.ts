import type { Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/errors.ts';
import { Messages } from '../shared/messages.ts';
import { isModule, type Module } from './access.ts';
import type { OrganizationEvent, OrganizationFlags } from './events.ts';
import { requireName, sameSet } from './rules.ts';

export type OrganizationCommand =
  | { type: 'CreateOrganization'; organizationId: string; name: string; modules: readonly string[]; flags?: OrganizationFlags; at: Date }
  | { type: 'SetModules'; modules: readonly string[]; at: Date }
  | { type: 'SetFlags'; flags: OrganizationFlags; at: Date };

export interface OrganizationState {
  organizationId: string | null;
  name: string;
  modules: Module[];
  flags: OrganizationFlags;
}

function modulesOf(names: readonly string[]): Module[] {
  if (!names.every(isModule)) throw new DomainError('invalid', Messages.unknownModule);
  return [...new Set(names as readonly Module[])];
}

function existing(state: OrganizationState): string {
  if (!state.organizationId) throw new DomainError('not_found', Messages.recordNotFound);
  return state.organizationId;
}

export const organizationDecider: Decider<OrganizationCommand, OrganizationEvent, OrganizationState> = {
  initialState: () => ({ organizationId: null, name: '', modules: [], flags: {} }),

  evolve(state, event) {
    switch (event.type) {
      case 'OrganizationCreated':
        return { organizationId: event.data.organizationId, name: event.data.name, modules: event.data.modules, flags: event.data.flags };
      case 'OrganizationModulesChanged':
        return { ...state, modules: event.data.modules };
      case 'OrganizationFlagsChanged':
        return { ...state, flags: event.data.flags };
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'CreateOrganization': {
        if (state.organizationId) throw new DomainError('conflict', Messages.alreadyExists);
        const data = {
          organizationId: command.organizationId,
          name: requireName(command.name),
          modules: modulesOf(command.modules),
          flags: { ...command.flags },
          createdAt: command.at.toISOString(),
        };
        return [{ type: 'OrganizationCreated', data }];
      }
      case 'SetModules': {
        const organizationId = existing(state);
        const modules = modulesOf(command.modules);
        if (sameSet(modules, state.modules)) return [];
        return [{ type: 'OrganizationModulesChanged', data: { organizationId, modules, changedAt: command.at.toISOString() } }];
      }
      case 'SetFlags': {
        const organizationId = existing(state);
        const flags = { ...state.flags, ...command.flags };
        if (JSON.stringify(flags) === JSON.stringify(state.flags)) return [];
        return [{ type: 'OrganizationFlagsChanged', data: { organizationId, flags, changedAt: command.at.toISOString() } }];
      }
    }
  },
};
