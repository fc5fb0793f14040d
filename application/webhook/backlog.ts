/**
 * Which organizations may have due rows in the table that this dispatcher does not hold. The
 * outbox hands a new row straight over only when its organization has none: otherwise the new row
 * would overtake older ones (left pending when the queue in memory was full, or dropped from it
 * when their lease ran short), which are claimed in order instead. At start-up nothing is known.
 */
export class Backlog {
  private unknown = true;
  private readonly organizations = new Set<string>();

  has(organizationId: string): boolean {
    return this.unknown || this.organizations.has(organizationId);
  }

  add(organizationId: string): void {
    this.organizations.add(organizationId);
  }

  /** A claim that skipped `skipped` found nothing due: every other organization has no backlog. */
  drained(skipped: readonly string[]): void {
    if (this.unknown) {
      this.unknown = false;
      for (const organizationId of skipped) this.organizations.add(organizationId);
    }
    for (const organizationId of this.organizations) if (!skipped.includes(organizationId)) this.organizations.delete(organizationId);
  }
}
