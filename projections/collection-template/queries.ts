import type { Knex } from 'knex';
import type { ItemKind } from '../../domain/collection/enums.ts';
import type { TemplateContent } from '../../domain/collection-template/content.ts';
import { PLATFORM_TEMPLATES, platformTemplate, type PlatformTemplate } from '../../domain/collection-template/platform.ts';
import type { CollectionTemplate } from '../../domain/collection-template/template.ts';

export interface TemplateMetrics {
  collections: number;
  completedCollections: number;
  /** completedCollections / collections, 0 to 1 (0 without collections). */
  completionRate: number;
  /** Mean hours from creation to completion of the completed ones; null when none completed. */
  averageCompletionHours: number | null;
}

export type TemplateListing = CollectionTemplate & { metrics: TemplateMetrics };

export interface TemplateFilter {
  search?: string;
  itemKind?: ItemKind;
  /** true: the choices (switched on); false: the switched-off ones; absent: both. */
  enabled?: boolean;
  skip: number;
  take: number;
}

const ownTemplateOf = (row: Record<string, unknown>): CollectionTemplate => ({
  ...(row.content as TemplateContent),
  templateId: row.template_id as string,
  slug: row.slug as string,
  scope: 'ORGANIZATION',
  version: row.version as number,
  enabled: row.enabled as boolean,
});

function ownTemplates(db: Knex, organizationId: string) {
  return db('collection_template_templates as t')
    .join('collection_template_versions as v', function () {
      this.on('v.template_id', 't.template_id').andOn('v.version', 't.version');
    })
    .where('t.organization_id', organizationId)
    .select('t.template_id', 't.slug', 't.version', 't.enabled', 'v.content');
}

async function platformSwitches(db: Knex, organizationId: string, slug?: string): Promise<Map<string, boolean>> {
  const query = db('collection_template_switches').where({ organization_id: organizationId });
  if (slug !== undefined) query.andWhere({ slug });
  return new Map((await query).map((row) => [row.slug as string, row.enabled as boolean]));
}

const platformFor = (template: PlatformTemplate, switches: Map<string, boolean>): CollectionTemplate => ({ ...template, enabled: switches.get(template.slug) ?? true });

/**
 * The latest version of a template visible to the organization, platform or its own. A switched-off
 * one is returned too (with enabled false): POST /v1/collections still accepts its slug.
 */
export async function findTemplateBySlug(db: Knex, organizationId: string, slug: string): Promise<CollectionTemplate | null> {
  const platform = platformTemplate(slug);
  if (platform) return platformFor(platform, await platformSwitches(db, organizationId, slug));
  const row = await ownTemplates(db, organizationId).andWhere('t.slug', slug).first();
  return row ? ownTemplateOf(row) : null;
}

/** One version of a template; of a platform one only the current (a collection keeps its own copy). */
export async function findTemplateVersion(db: Knex, organizationId: string, slug: string, version: number): Promise<CollectionTemplate | null> {
  const platform = platformTemplate(slug);
  if (platform) return platform.version === version ? platformFor(platform, await platformSwitches(db, organizationId, slug)) : null;
  const row = await db('collection_template_templates as t')
    .join('collection_template_versions as v', 'v.template_id', 't.template_id')
    .where({ 't.organization_id': organizationId, 't.slug': slug, 'v.version': version })
    .first('t.template_id', 't.slug', 'v.version', 't.enabled', 'v.content');
  return row ? ownTemplateOf(row) : null;
}

// Case and accents do not matter in a search: "cadastro" finds "Cadastro", "acao" finds "ação".
const folded = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

function matches(template: CollectionTemplate, filter: TemplateFilter): boolean {
  if (filter.enabled !== undefined && template.enabled !== filter.enabled) return false;
  if (filter.itemKind && !template.items.some((item) => item.kind === filter.itemKind)) return false;
  if (!filter.search?.trim()) return true;
  const haystack = folded([template.slug, template.name, template.description ?? '', ...template.items.map((i) => i.title)].join(' '));
  return haystack.includes(folded(filter.search.trim()));
}

export async function templateMetrics(db: Knex, organizationId: string, slugs: readonly string[]): Promise<Map<string, TemplateMetrics>> {
  const rows = await db('collection_template_usage')
    .where({ organization_id: organizationId })
    .whereIn('slug', slugs)
    .groupBy('slug')
    .select('slug')
    .select(db.raw('count(*)::int as collections'))
    .select(db.raw('count(completed_at)::int as completed'))
    .select(db.raw('avg(extract(epoch from completed_at - created_at)) / 3600 as hours'));
  return new Map(
    rows.map((row) => {
      const collections = row.collections as number;
      const completed = row.completed as number;
      const hours = row.hours === null ? null : Math.round(Number(row.hours) * 100) / 100;
      return [row.slug as string, { collections, completedCollections: completed, completionRate: Math.round((completed / collections) * 10_000) / 10_000, averageCompletionHours: hours }];
    }),
  );
}

/** A template no collection was made from yet. */
export const NO_METRICS: TemplateMetrics = { collections: 0, completedCollections: 0, completionRate: 0, averageCompletionHours: null };

/**
 * The listing: platform templates first (in their fixed order), then the organization's own by
 * name, switched-off ones included. An organization has tens of templates, not thousands, so the
 * filter runs over the whole catalog in memory and only the page's metrics are aggregated.
 */
export async function listTemplates(db: Knex, organizationId: string, filter: TemplateFilter): Promise<{ total: number; items: TemplateListing[] }> {
  const switches = await platformSwitches(db, organizationId);
  const own = (await ownTemplates(db, organizationId).orderBy(['t.name', 't.slug'])).map(ownTemplateOf);
  const all = [...PLATFORM_TEMPLATES.map((t) => platformFor(t, switches)), ...own].filter((t) => matches(t, filter));
  const page = all.slice(filter.skip, filter.skip + filter.take);
  const metrics = await templateMetrics(
    db,
    organizationId,
    page.map((t) => t.slug),
  );
  return { total: all.length, items: page.map((t) => ({ ...t, metrics: metrics.get(t.slug) ?? NO_METRICS })) };
}

/**
 * An organization's own template by its id, whatever the organization (the public form's link
 * names the template only). Platform templates share their ids across organizations and never
 * have a public form, so they are not found here.
 */
export async function findOwnTemplateById(db: Knex, templateId: string): Promise<(CollectionTemplate & { organizationId: string }) | null> {
  const row = await db('collection_template_templates as t')
    .join('collection_template_versions as v', function () {
      this.on('v.template_id', 't.template_id').andOn('v.version', 't.version');
    })
    .where('t.template_id', templateId)
    .first('t.template_id', 't.organization_id', 't.slug', 't.version', 't.enabled', 'v.content');
  return row ? { ...ownTemplateOf(row), organizationId: row.organization_id as string } : null;
}
