import { chosenTerms, choiceDates, type ChosenTerms } from '../../domain/proposal/installment.ts';
import type { IndicativeTerms } from '../../domain/proposal/events.ts';
import type { ProposalState } from '../../domain/proposal/state.ts';
import { findProduct } from '../../projections/catalog/queries.ts';
import type { AppContext } from '../context.ts';
import { simulateFor } from '../pricing/simulation.ts';

/** IOF is law, not a product's choice: a product gone from the catalog prices with IOF upfront and no fees. */
const WITHOUT_PRODUCT = { fees: [], iof: { applies: true, financed: false }, moveDueDatesToBusinessDay: false };

/**
 * A choice priced by the pricing module: the offer's rate and model (what the customer was
 * offered), the product's current fees, IOF treatment and due-date rule, released on the day of
 * the choice with the first installment a month later.
 */
export async function priceChoice(app: Pick<AppContext, 'db'>, state: ProposalState, offer: IndicativeTerms, choice: { amountCents: number; termMonths: number; at: string }): Promise<ChosenTerms> {
  const created = state.created!;
  const pricing = (await findProduct(app.db, created.organizationId, created.productId))?.pricing ?? WITHOUT_PRODUCT;
  const { releaseDate, firstDueDate } = choiceDates(choice.at);
  const { amountCents, termMonths } = choice;
  const simulation = await simulateFor(app, created.organizationId, {
    amountCents,
    termMonths,
    entityType: created.entityType,
    releaseDate,
    firstDueDate,
    model: offer.model,
    // The decimal rate when the offer has one: bps cannot say 2% a month exactly.
    ...(offer.rate ? { rate: offer.rate } : { rateBpsYear: offer.rateBpsYear }),
    fees: pricing.fees,
    iof: pricing.iof,
    moveDueDatesToBusinessDay: pricing.moveDueDatesToBusinessDay,
  });
  return chosenTerms({ amountCents, termMonths, rateBpsYear: offer.rateBpsYear, rate: offer.rate, releaseDate }, simulation);
}
