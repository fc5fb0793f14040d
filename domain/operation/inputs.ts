import type { InputValue } from '../input-data/values.ts';

/**
 * A proposal's input data as a credit policy reads it: each key's dotted path is the variable,
 * `proposta.valor_pedido` as `inputs.proposta.valor_pedido`, `form.ficha-pj.faturamento` as
 * `inputs.form.ficha-pj.faturamento`. So the rule editor's `inputs.<key>` variables are exactly the
 * catalog's keys (GET /v1/input-data/catalog), and a REPORT run passes every one the proposal has.
 */
export function policyInputs(fields: readonly Pick<InputValue, 'key' | 'value'>[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const { key, value } of fields) {
    const parts = key.split('.');
    let node = root;
    for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    node[parts.at(-1)!] = value;
  }
  return root;
}
