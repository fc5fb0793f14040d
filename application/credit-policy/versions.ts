import type { PolicySnapshot } from '../../domain/credit-policy/policy.ts';
import type { EventStore } from '../../platform/eventstore/port.ts';
import { loadPolicy } from './commands.ts';

/**
 * Policy versions by number. A version never changes once written, so after one read of the
 * policy's stream every version in it is served from memory (bounded, oldest dropped first).
 */
export class PolicyVersions {
  private readonly cache = new Map<string, PolicySnapshot>();

  constructor(
    private readonly store: EventStore,
    private readonly max = 2_000,
  ) {}

  async get(policyId: string, version: number): Promise<PolicySnapshot> {
    const key = `${policyId}:${version}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const state = await loadPolicy({ store: this.store }, policyId);
    state.versions.forEach((content, i) => this.remember(`${policyId}:${i + 1}`, { ...content, policyId, version: i + 1 }));
    const found = this.cache.get(key);
    if (!found) throw new Error(`credit policy ${policyId} has no version ${version}`);
    return found;
  }

  private remember(key: string, snapshot: PolicySnapshot): void {
    if (this.cache.size >= this.max) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, snapshot);
  }
}
