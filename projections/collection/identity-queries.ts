import type { Knex } from 'knex';
import type { IdentityVerdict } from '../../domain/collection/kinds/identity.ts';
import type { IdentityOrigin } from './identity-projection.ts';

/** Counts and the listing consider at most this many of the most recent verifications of each origin (spec). */
export const IDENTITY_WINDOW = 5000;

export interface IdentityValidationFilter {
  origin?: IdentityOrigin;
  verdict?: IdentityVerdict;
  /** Completion period, inclusive bounds (ISO instants). */
  from?: string;
  to?: string;
  skip: number;
  take: number;
}

export interface IdentityValidationRow {
  checkId: string;
  origin: IdentityOrigin;
  collectionId: string;
  itemId: string;
  recipientId: string | null;
  registryId: string;
  /** Always masked (or `***` once the subject was erased). */
  document: string;
  provider: string;
  verdict: IdentityVerdict;
  similarity: number | null;
  liveness: number | null;
  signals: string[];
  imageCount: number;
  completedAt: string;
}

export interface IdentityValidationPage {
  total: number;
  items: IdentityValidationRow[];
  summary: {
    /** Verifications in the window (before the verdict filter). */
    verifications: number;
    byVerdict: Record<IdentityVerdict, number>;
    byOrigin: Record<IdentityOrigin, number>;
    /** applied: some origin had more than `size` verifications in the period, the oldest were left out. */
    window: { applied: boolean; size: number; origins: IdentityOrigin[] };
  };
}

/**
 * The window first (the period and origin filters, then the IDENTITY_WINDOW most recent completed
 * checks of each origin), then the verdict filter for `total` and the page; the summary counts the
 * whole window.
 */
export async function listIdentityValidations(db: Knex, organizationId: string, filter: IdentityValidationFilter): Promise<IdentityValidationPage> {
  const candidates = db('collection_identity_validations').where({ organization_id: organizationId }).whereNotNull('completed_at');
  if (filter.origin) candidates.andWhere({ origin: filter.origin });
  if (filter.from) candidates.andWhere('completed_at', '>=', filter.from);
  if (filter.to) candidates.andWhere('completed_at', '<=', filter.to);
  const ranked = candidates.select('*', db.raw('row_number() over (partition by origin order by completed_at desc, check_id desc) as rank'));
  const windowed = () => db.from(ranked.clone().as('r')).where('rank', '<=', IDENTITY_WINDOW);

  const [groups, beyond] = await Promise.all([
    windowed().select('origin', 'verdict').count<{ origin: IdentityOrigin; verdict: IdentityVerdict; count: string }[]>({ count: '*' }).groupBy('origin', 'verdict'),
    db.from(ranked.clone().as('r')).where('rank', '>', IDENTITY_WINDOW).distinct<{ origin: IdentityOrigin }[]>('origin'),
  ]);
  const byVerdict: Record<IdentityVerdict, number> = { APROVADO: 0, REPROVADO: 0, INCONCLUSIVO: 0 };
  const byOrigin: Record<IdentityOrigin, number> = { COLLECTION: 0, SIGNATURE: 0, PUBLIC_FORM: 0 };
  for (const group of groups) {
    byVerdict[group.verdict] += Number(group.count);
    byOrigin[group.origin] += Number(group.count);
  }
  const total = filter.verdict ? byVerdict[filter.verdict] : Object.values(byVerdict).reduce((a, b) => a + b, 0);
  const page = windowed();
  if (filter.verdict) page.andWhere({ verdict: filter.verdict });
  const rows: Row[] = await page
    .orderBy([
      { column: 'completed_at', order: 'desc' },
      { column: 'check_id', order: 'desc' },
    ])
    .offset(filter.skip)
    .limit(filter.take);
  const origins = beyond.map((b) => b.origin).sort();
  return {
    total,
    items: rows.map(toValidation),
    summary: { verifications: Object.values(byOrigin).reduce((a, b) => a + b, 0), byVerdict, byOrigin, window: { applied: origins.length > 0, size: IDENTITY_WINDOW, origins } },
  };
}

interface Row {
  check_id: string;
  origin: IdentityOrigin;
  collection_id: string;
  item_id: string;
  recipient_id: string | null;
  registry_id: string;
  document: string;
  provider: string;
  verdict: IdentityVerdict;
  similarity: number | null;
  liveness: number | null;
  signals: string[] | null;
  image_count: number;
  completed_at: Date;
}

function toValidation(row: Row): IdentityValidationRow {
  return {
    checkId: row.check_id,
    origin: row.origin,
    collectionId: row.collection_id,
    itemId: row.item_id,
    recipientId: row.recipient_id,
    registryId: row.registry_id,
    document: row.document,
    provider: row.provider,
    verdict: row.verdict,
    similarity: row.similarity,
    liveness: row.liveness,
    signals: row.signals ?? [],
    imageCount: row.image_count,
    completedAt: row.completed_at.toISOString(),
  };
}

/** The input key kyc.identidade_aprovada of a registry: its latest completed identity check approved; absent before any check. */
export async function identityInputValues(db: Knex, organizationId: string, registryId: string): Promise<{ 'kyc.identidade_aprovada'?: boolean }> {
  const latest = await db('collection_identity_validations')
    .where({ organization_id: organizationId, registry_id: registryId })
    .whereNotNull('completed_at')
    .orderBy([
      { column: 'completed_at', order: 'desc' },
      { column: 'check_id', order: 'desc' },
    ])
    .first('verdict');
  return latest ? { 'kyc.identidade_aprovada': latest.verdict === 'APROVADO' } : {};
}

/** The stored images of the identity checks of a subject's collections: an erasure of the subject deletes them. */
export async function identityImageBlobIdsOfSubject(db: Knex, subjectId: string): Promise<string[]> {
  const rows = await db('collection_identity_validations').where({ subject_id: subjectId }).select('image_blob_ids');
  return rows.flatMap((r) => r.image_blob_ids as string[]);
}
