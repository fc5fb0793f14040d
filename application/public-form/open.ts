import type { AppContext } from '../context.ts';
import type { CollectionTemplate } from '../../domain/collection-template/template.ts';
import type { PublicFormRequest } from '../../domain/public-form/form.ts';
import type { Position } from '../../platform/eventstore/port.ts';
import type { Module } from '../../domain/identity/access.ts';
import { findOwnTemplateById } from '../../projections/collection-template/queries.ts';
import { SYSTEM_ACTOR } from '../collection/actor.ts';
import { createCollection, type App, type RecipientLinkOut } from '../collection/commands.ts';
import { keyringFor } from '../../config/index.ts';
import { PublicFormCounters } from './limits.ts';

/** The modules that make collections available to an organization (http/gates.ts, Gates.collections). */
const COLLECTION_MODULES: readonly Module[] = ['onboarding', 'formalization', 'registry'];

export type PublicTemplate = CollectionTemplate & { organizationId: string; organizationName: string };

export const countersOf = (app: Pick<App, 'db' | 'config'>) =>
  new PublicFormCounters(app.db, { perAddressPerHour: app.config.PUBLIC_FORM_PER_ADDRESS_PER_HOUR, dailyCeiling: app.config.PUBLIC_FORM_DAILY_CEILING }, keyringFor(app.config, 'pepper'));

/**
 * The template behind a public link while the link may be used: an own template with the public
 * form on, switched on, of an organization that still has collections. Null otherwise (404).
 */
export async function publicTemplate(app: Pick<AppContext, 'db' | 'authenticator'>, templateId: string): Promise<PublicTemplate | null> {
  const template = await findOwnTemplateById(app.db, templateId);
  if (!template?.publicForm || !template.enabled) return null;
  const organization = await app.authenticator.organization(template.organizationId);
  if (!organization?.modules.some((m) => COLLECTION_MODULES.includes(m))) return null;
  return { ...template, organizationName: organization.name };
}

export type PublicFormOutcome = { opened: true; link: RecipientLinkOut; position: Position | null } | { opened: false; reason: 'ADDRESS' | 'CEILING' };

/**
 * A collection somebody opened for themselves: the template's items for the subject of the CPF
 * or CNPJ typed, the person as its only recipient, sent at once (they go straight to their page;
 * the template's channel also sends them the link). Created by SYSTEM: nobody of the organization
 * acted. It is an intake (origin PUBLIC_FORM): nothing on file is shown or reused, and when the
 * document's registry existed what the visitor sends stays apart until an operator links it.
 * The limits are taken first and given back when the collection is refused.
 */
export async function openPublicCollection(app: App, template: PublicTemplate, request: PublicFormRequest, address: string): Promise<PublicFormOutcome> {
  const now = app.clock.now();
  const reservation = await countersOf(app).reserve(template.organizationId, address, now);
  if (!reservation.ok) return { opened: false, reason: reservation.reason };
  try {
    const caller = { organizationId: template.organizationId, userId: '', permissions: new Set<never>() };
    const created = await createCollection(
      app,
      caller,
      {
        templateSlug: template.slug,
        subject: { name: request.name, document: request.document },
        recipients: [{ name: request.name, email: request.email, phone: request.phone }],
        send: true,
      },
      { actor: SYSTEM_ACTOR, origin: 'PUBLIC_FORM' },
    );
    return { opened: true, link: created.links[0]!, position: created.position };
  } catch (error) {
    await reservation.release();
    throw error;
  }
}
