import Type from 'typebox';
import { BACKTEST_LIMIT, backtestPolicy } from '../../application/credit-policy/backtest.ts';
import { createPolicyVersion } from '../../application/credit-policy/commands.ts';
import { replyAfterWrite } from '../../application/read-your-writes.ts';
import { diffPolicies } from '../../domain/credit-policy/diff.ts';
import type { PolicyContent } from '../../domain/credit-policy/policy.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { CREDIT_POLICY_PROJECTION } from '../../projections/credit-policy/projection.ts';
import { findPolicy, listPolicies, listPolicyVersions } from '../../projections/credit-policy/queries.ts';
import { contentOf, PolicyBody } from '../credit-policy/schemas.ts';
import { allows, Gates } from '../gates.ts';
import { ObjectIdSchema, type RouteSpec } from '../route.ts';
import { validateBody } from '../validation.ts';
import { seeOther } from './html.ts';
import { editPage, policyListPage, policyPage } from './policy-html.ts';
import { consoleRoute, field, page, pageHtml, type SignedIn } from './signed-in.ts';

const Params = Type.Object({ id: ObjectIdSchema() });
const editErrors = [400, 404, 409, 422];
/** Every page and form here reads the policies' read model. */
const reads = [CREDIT_POLICY_PROJECTION];

async function policyOf(input: SignedIn) {
  const policy = await findPolicy(input.app.db, input.principal.organizationId, input.params.id!);
  if (!policy) throw new DomainError('not_found', Messages.policyNotFound);
  return policy;
}

/** The draft in the form: JSON, then the API's own schema and messages, then the domain's rules. */
function draftOf(input: SignedIn): PolicyContent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(field(input.body, 'politica'));
  } catch {
    throw new DomainError('invalid', Messages.malformedJson);
  }
  return contentOf(validateBody(PolicyBody, parsed));
}

const limitOf = (input: SignedIn) => {
  const limit = Number(field(input.body, 'limite'));
  return Number.isInteger(limit) && limit >= 1 ? Math.min(limit, BACKTEST_LIMIT.max) : BACKTEST_LIMIT.default;
};

/** The edit page again, with what was typed, after a refusal. */
const editAgain = async (input: SignedIn, message: string) =>
  pageHtml('Editar política', input, editPage({ policyId: input.params.id!, draft: field(input.body, 'politica'), limit: limitOf(input), csrf: input.csrf, message }));

export const policyPageRoutes: RouteSpec[] = [
  consoleRoute({
    method: 'get',
    path: '/console/politicas',
    summary: "The organization's credit policies (HTML)",
    gate: Gates.creditPolicyRead,
    reads,
    async handle(input) {
      return page(200, 'Políticas de crédito', input, policyListPage(await listPolicies(input.app.db, input.principal.organizationId, { includeArchived: true })));
    },
  }),
  consoleRoute({
    method: 'get',
    path: '/console/politicas/:id',
    summary: 'A credit policy (HTML): its rules and score, and two versions side by side (`de`, `para`)',
    gate: Gates.creditPolicyRead,
    params: Params,
    errors: [404],
    reads,
    async handle(input) {
      const policy = await policyOf(input);
      const versions = await listPolicyVersions(input.app.db, input.principal.organizationId, policy.id);
      const query = input.ctx.query;
      const pick = (name: string) => versions.find((v) => String(v.version) === query[name]);
      const [a, b] = [pick('de'), pick('para')];
      const compare = a && b ? { a: a.version, b: b.version, changes: diffPolicies(a.content, b.content) } : null;
      return page(200, policy.content.name, input, policyPage(policy, versions, compare, allows(Gates.creditPolicyManage, input.principal)));
    },
  }),
  consoleRoute({
    method: 'get',
    path: '/console/politicas/:id/editar',
    summary: 'Edit a credit policy (HTML): the latest version as JSON, a backtest over past reports, and saving as a new version',
    gate: Gates.creditPolicyManage,
    params: Params,
    errors: [404],
    reads,
    async handle(input) {
      const policy = await policyOf(input);
      const { name, description, documentType, sections, score, groups, sourceErrors, parecerEnabled, committee } = policy.content;
      const draft = JSON.stringify({ name, description, documentType, sections, score, groups, sourceErrors, parecerEnabled, ...(committee && { committee }) }, null, 2);
      return page(200, 'Editar política', input, editPage({ policyId: policy.id, draft, limit: BACKTEST_LIMIT.default, csrf: input.csrf }));
    },
  }),
  consoleRoute({
    method: 'post',
    path: '/console/politicas/:id/backtest',
    summary: "Backtest a draft (urlencoded `politica` as JSON, `limite`, `csrf`): the draft over the organization's latest finalized reports, nothing written",
    description: 'A matrix of the decisions before against after, and the reports whose decision would change. Validation refusals come back on the form, as the API words them.',
    gate: Gates.creditPolicyManage,
    params: Params,
    errors: editErrors,
    reads,
    async handle(input) {
      await policyOf(input);
      const limit = limitOf(input);
      const result = await backtestPolicy(input.app, input.principal, draftOf(input), limit);
      return page(200, 'Editar política', input, editPage({ policyId: input.params.id!, draft: field(input.body, 'politica'), limit, csrf: input.csrf, result }));
    },
    form: editAgain,
  }),
  consoleRoute({
    method: 'post',
    path: '/console/politicas/:id/editar',
    summary: "Save a draft as the policy's new version (urlencoded `politica` as JSON, `csrf`)",
    gate: Gates.creditPolicyManage,
    params: Params,
    redirects: "to the policy's page",
    errors: editErrors,
    reads,
    async handle(input) {
      const written = await createPolicyVersion(input.app, input.principal, input.params.id!, draftOf(input));
      // The policy's page declares what it reads: it waits for this write.
      return replyAfterWrite(input.app, input.principal, written, ({ state }) => seeOther(`/console/politicas/${state.policyId}`));
    },
    form: editAgain,
  }),
];
