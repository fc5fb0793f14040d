import type { ClaimedDelivery } from './delivery-store.ts';

/** Rows given to the send lane whose results have not come back, counted per organization. */
export class SendingRows {
  private readonly rows = new Map<string, ClaimedDelivery>();
  private readonly perOrganization = new Map<string, number>();
  private emptied: (() => void) | undefined;

  get size(): number {
    return this.rows.size;
  }

  of(organizationId: string): number {
    return this.perOrganization.get(organizationId) ?? 0;
  }

  add(row: ClaimedDelivery): void {
    this.rows.set(row.id, row);
    this.perOrganization.set(row.organization_id, this.of(row.organization_id) + 1);
  }

  /** The row whose result came back (or that was taken back), no longer counted. */
  take(id: string): ClaimedDelivery | undefined {
    const row = this.rows.get(id);
    if (!row) return undefined;
    this.rows.delete(id);
    const left = this.of(row.organization_id) - 1;
    if (left) this.perOrganization.set(row.organization_id, left);
    else this.perOrganization.delete(row.organization_id);
    if (!this.rows.size) this.emptied?.();
    return row;
  }

  /** Resolves once no row is out, or after `ms`. */
  settled(ms: number): Promise<void> {
    if (!this.rows.size) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.emptied?.(), ms);
      this.emptied = () => {
        clearTimeout(timer);
        this.emptied = undefined;
        resolve();
      };
    });
  }
}
