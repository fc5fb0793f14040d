import type { Context } from 'koa';
import Type, { type TSchema } from 'typebox';
import { confirmSignatureCode, requestSignatureCode } from '../../../application/collection/signature/codes.ts';
import { declineSignature, signItem } from '../../../application/collection/signature/commands.ts';
import { signatureDocumentFile } from '../../../application/collection/signature/document.ts';
import type { AppContext } from '../../../application/context.ts';
import { ITEM_STATUSES } from '../../../domain/collection/enums.ts';
import { SignatureMessages } from '../../../domain/collection/messages.ts';
import type { CollectionState } from '../../../domain/collection/state.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { HttpError } from '../../errors.ts';
import { ObjectIdSchema, PAGE_FORM_BODY_LIMIT, route, type Reply, type RouteSpec } from '../../route.ts';
import { validateBody } from '../../validation.ts';
import { originOf } from '../../client-address.ts';
import { RecipientPageTexts } from '../recipient-html.ts';
import { isReply, openLink, refusalFor, STATUS_OF, type OpenLink } from '../recipient-link.ts';
import { pageOf } from '../recipient-page.ts';
import { presentSignatureDetails, SignatureDetailsSchema } from './signature-details.ts';

type PartyRef = { organizationId: string; collectionId: string; itemId: string; recipientId: string };
const statusOf = (kind: DomainError['kind']) => STATUS_OF[kind] ?? (kind === 'too_many' ? 429 : undefined);

const Params = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: 'the link token the recipient received' }),
  itemId: ObjectIdSchema(),
});

/** The link, and the SIGNATURE item of its recipient; a refusal otherwise. */
async function partyLink(app: AppContext, ctx: Context, token: string, itemId: string): Promise<(OpenLink & { ref: PartyRef }) | Reply> {
  const refuse = refusalFor(ctx);
  const link = await openLink(app, token, refuse);
  if (isReply(link)) return link;
  const item = link.state.items.find((i) => i.itemId === itemId);
  if (!link.recipient.itemIds.includes(itemId) || !item) return refuse(404, RecipientPageTexts.linkInvalidTitle, RecipientPageTexts.itemGone);
  if (item.kind !== 'SIGNATURE' || !item.config?.signature) return refuse(400, RecipientPageTexts.linkInvalidTitle, SignatureMessages.notASignature);
  const ref = { organizationId: link.state.organizationId!, collectionId: link.state.collectionId!, itemId, recipientId: link.recipient.recipientId };
  return { ...link, ref };
}

/**
 * One step of the party: run it, then a browser goes back to the page (303) and a client gets the
 * item's signature details; a refusal is the page with the message (browser) or `{code, message}`.
 */
async function partyStep<S extends TSchema>(
  app: AppContext,
  ctx: Context,
  params: { token: string; itemId: string },
  schema: S,
  body: unknown,
  run: (ref: PartyRef, input: Type.Static<S>) => Promise<{ state: CollectionState }>,
): Promise<Reply> {
  const link = await partyLink(app, ctx, params.token, params.itemId);
  if (isReply(link)) return link;
  const browser = ctx.accepts('json', 'html') === 'html';
  try {
    const { state } = await run(link.ref, validateBody(schema, body));
    if (browser) return { status: 303, raw: Buffer.alloc(0), headers: { location: `/c/${encodeURIComponent(params.token)}#item-${params.itemId}` } };
    const item = state.items.find((i) => i.itemId === params.itemId)!;
    return { status: 200, body: { itemId: item.itemId, status: item.status, ...presentSignatureDetails(state, item) } };
  } catch (error) {
    // A malformed body (HttpError 400) is shown on the page like a refusal.
    const status = error instanceof DomainError ? statusOf(error.kind) : error instanceof HttpError && error.status === 400 ? 400 : undefined;
    if (!status) throw error;
    const message = (error as Error).message;
    // The page as it is now: a wrong code was recorded, so the attempts left show.
    const now = await openLink(app, params.token, refusalFor(ctx));
    const page = isReply(now) ? undefined : await pageOf(app, params.token, now, { error: message });
    return refusalFor(ctx)(status, 'Não foi possível continuar', message, page);
  }
}

const StepReply = Type.Object(
  {
    itemId: Type.String(),
    status: Type.Enum(ITEM_STATUSES),
    signature: SignatureDetailsSchema,
  },
  { description: 'for a client that does not ask for HTML: the item and its signature details' },
);
const stepResponses = { 200: StepReply, 303: Type.Null({ description: 'for a browser: back to the page (Location)' }) };
const FORM_NOTE = " Body: JSON or the page's urlencoded form. A browser (Accept: text/html) is sent back to the page (303) or gets the page with the refusal.";

const ChannelBody = Type.Object({ channel: Type.Enum(['EMAIL', 'PHONE'] as const, { description: 'EMAIL: the e-mail on file; PHONE: the phone on file, by WhatsApp' }) });
const CodeBody = Type.Object({ code: Type.String({ maxLength: 20, description: 'the 6 digits received' }) });
const DeclineBody = Type.Object({ reason: Type.String({ maxLength: 500, description: 'why the party does not sign' }) });
const NoBody = Type.Object({});

const step = (path: string, summary: string, description: string, schema: TSchema, run: (app: AppContext, ref: PartyRef, input: never, ctx: Context) => Promise<{ state: CollectionState }>) =>
  route({
    method: 'post',
    path: `/c/:token/items/:itemId/signature/${path}`,
    summary,
    description: description + FORM_NOTE,
    auth: false,
    rawBody: true,
    pageForm: true,
    bodyLimit: PAGE_FORM_BODY_LIMIT,
    params: Params,
    responses: stepResponses,
    errors: [404, 409, 429],
    // The link and the party's SIGNATURE item before a byte of the body is read.
    async before({ app, ctx, params }) {
      const link = await partyLink(app, ctx, params.token, params.itemId);
      return isReply(link) ? link : undefined;
    },
    async handle({ app, ctx, params, body }) {
      return partyStep(app, ctx, params, schema, body, (ref, input) => run(app, ref, input as never, ctx));
    },
  });

export const signatureRecipientRoutes: RouteSpec[] = [
  route({
    method: 'get',
    path: '/c/:token/items/:itemId/document',
    summary: 'The document a SIGNATURE item asks the recipient to sign (PDF), to read before signing',
    description: 'Inline by default; `?download=1` as an attachment. Only for a party of the item while the link works.',
    auth: false,
    files: ['application/pdf'],
    params: Params,
    query: Type.Object({ download: Type.Optional(Type.String({ description: 'any value: download instead of showing' })) }),
    errors: [404],
    async handle({ app, ctx, params, query }) {
      const link = await partyLink(app, ctx, params.token, params.itemId);
      if (isReply(link)) return link;
      const registryDocumentId = link.state.items.find((i) => i.itemId === params.itemId)!.config!.signature!.registryDocumentId!;
      const file = await signatureDocumentFile(app, link.ref.organizationId, registryDocumentId);
      const name = file.fileName.replace(/[^\w.-]+/g, '_') || 'documento.pdf';
      return {
        status: 200,
        raw: file.bytes,
        headers: { 'content-type': 'application/pdf', 'content-disposition': `${query.download ? 'attachment' : 'inline'}; filename="${name}"`, 'x-content-type-options': 'nosniff' },
      };
    },
  }),
  step(
    'code',
    'Send the party a one-time code (6 digits, 10 minutes) to confirm their e-mail or phone',
    "SIGNATURE_CODE_SENT in the trail. Refused before the party's turn (ordered), before an identity check (SIGNATURE_AND_IDENTITY), without that contact, or within a minute of the last code (429).",
    ChannelBody,
    (app, ref, input: { channel: 'EMAIL' | 'PHONE' }) => requestSignatureCode(app, ref, input.channel),
  ),
  step(
    'verify',
    "Confirm the code: the party's contact is verified",
    "SIGNATURE_CONTACT_VERIFIED in the trail for the right code. A wrong code appends nothing but counts (400 with the attempts left); an expired code (409) or more than 5 tries (429) need a new code; past 20 tries at the item's codes in a day (São Paulo time) every try is refused (429) until the next day.",
    CodeBody,
    (app, ref, input: { code: string }) => confirmSignatureCode(app, ref, input.code),
  ),
  step(
    'sign',
    'Sign ("Assinar"): SIGNATURE_COLLECTED with the evidence set; the last party\'s signature also completes the item\'s signatures',
    'Needs the contact confirmed. The evidence: channel verified, time, address, user agent, document SHA-256.',
    NoBody,
    (app, ref, _input, ctx) => signItem(app, { ...ref, origin: originOf(ctx), userAgent: ctx.get('user-agent') || null }),
  ),
  step(
    'decline',
    'Decline ("Recusar") with a reason: the item stops and waits for the operator',
    'SIGNATURE_DECLINED in the trail; the item goes AWAITING_OPERATOR (the operator queue).',
    DeclineBody,
    (app, ref, input: { reason: string }) => declineSignature(app, { ...ref, reason: input.reason }),
  ),
];
