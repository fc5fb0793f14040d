/** A due delivery, claimed with a lease, with what is needed to send it (from the outbox's copy of the subscription). */
export interface ClaimedDelivery {
  id: string;
  subscription_id: string;
  organization_id: string;
  event_name: string;
  family: 'legacy' | 'named';
  body: string;
  attempts: number;
  schedule_start: number;
  claim_token: string;
  url: string;
  api_key: string | null;
  sealed_secret: string | null;
  previous_sealed_secret: string | null;
  previous_secret_expires_at: Date | null;
}

/**
 * The outbox's way to give new delivery rows straight to the dispatcher of its own process: a row
 * the dispatcher takes is inserted already claimed (claim token, lease), and handed over in memory
 * once its transaction commits, so it is sent without a claim round trip or a poll, and is as
 * durable as any other row (another dispatcher takes it over when the lease ends). Rows it does not
 * take are inserted pending and claimed as usual.
 */
export interface DeliveryHandoff {
  /** A lease (ms) for one more row of this organization, counted as queued from now; null: leave it pending. */
  reserve(organizationId: string): number | null;
  /**
   * The rows' transaction committed: send them. `reservedAt` (this process's clock) is before the
   * first reservation, so before the database started their leases.
   */
  take(rows: readonly ClaimedDelivery[], reservedAt: number): void;
  /** The rows' transaction rolled back, or they were canceled before it committed: forget them. */
  release(rows: readonly ClaimedDelivery[]): void;
  /**
   * After a commit: these subscriptions changed (secret, address, events, status). Rows of theirs
   * held in memory carry the old state: they are not sent from memory, but claimed again, with
   * the new state, when their lease ends (or canceled, if the subscription is off).
   */
  changed(subscriptionIds: readonly string[]): void;
  /** After a commit: rows were inserted pending (not reserved): claim them. */
  queued(): void;
}
