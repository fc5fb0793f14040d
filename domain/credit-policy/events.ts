import type { DomainEvent } from '../shared/decider.ts';
import type { PolicyContent } from './policy.ts';

/** Streams are `creditpolicy-<id>`: no dash in the category, since categoryOf() cuts at the first one. */
export const CREDIT_POLICY_CATEGORY = 'creditpolicy';
export const policyStream = (policyId: string) => `${CREDIT_POLICY_CATEGORY}-${policyId}`;

export const CreditPolicyEventTypes = {
  created: 'CreditPolicyCreated',
  versioned: 'CreditPolicyVersioned',
  archived: 'CreditPolicyArchived',
} as const;

interface VersionData {
  policyId: string;
  organizationId: string;
  version: number;
  /** The whole version, not a diff: a version must read alone. */
  content: PolicyContent;
  userId: string;
  createdAt: string;
}

export type CreditPolicyCreated = DomainEvent<'CreditPolicyCreated', VersionData>;
export type CreditPolicyVersioned = DomainEvent<'CreditPolicyVersioned', VersionData>;
export type CreditPolicyArchived = DomainEvent<'CreditPolicyArchived', { policyId: string; organizationId: string; version: number; userId: string; archivedAt: string }>;

export type CreditPolicyEvent = CreditPolicyCreated | CreditPolicyVersioned | CreditPolicyArchived;
