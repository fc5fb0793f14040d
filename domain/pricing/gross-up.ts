import { iofCents } from './iof.ts';

/**
 * Financed IOF: the smallest principal P with P - IOF(P) >= base (the requested amount plus the
 * financed fees), so the customer receives what was asked. IOF is nearly proportional to P
 * (ratio k): Newton-like steps P -= g(P) / (1 - k) land within a few cents, then single cents
 * settle it on a P with g(P) >= 0 > g(P - 1). That P depends on the path: g is not monotone
 * cent by cent (a PRICE principal one cent apart moves every row's rounding, so IOF(P) can move
 * by several cents), so a faster search must ask g at the same principals in the same order.
 */
export function grossUp(base: number, iof: IofOfPrincipal): number {
  const seen = new Map<number, number>();
  const slope = 1 + gapAt(iof, seen, base, base) / base; // g(base) = -IOF(base)
  let principal = Math.ceil(base / slope);
  for (let i = 0; i < 5; i++) {
    const gap = gapAt(iof, seen, base, principal);
    if (Math.abs(gap) <= 1) break;
    principal -= Math.round(gap / slope);
  }
  while (gapAt(iof, seen, base, principal) < 0) principal++;
  while (gapAt(iof, seen, base, principal - 1) >= 0) principal--;
  return principal;
}

/**
 * The IOF of a principal, as an object rather than a callback: the service runs under tsx, which
 * names every function created at run time (keepNames), and the closures a simulation made for
 * the search were a measurable part of it.
 */
export interface IofOfPrincipal {
  iofOf(principalCents: number): number;
}

/** g(p) = p - IOF(p) - base, each principal's asked once. */
function gapAt(iof: IofOfPrincipal, seen: Map<number, number>, base: number, p: number): number {
  let gap = seen.get(p);
  if (gap === undefined) seen.set(p, (gap = p - iof.iofOf(p) - base));
  return gap;
}

/**
 * SAC's IOF of a principal without its schedule, for the financed-IOF search: every row but the
 * last amortizes level = round(P / n) whatever the interest, and the last the rest, P - (n - 1)
 * x level. So IOF(P) is the IOF of `level` over the first n - 1 due dates (kept per level: the
 * search's principals share one or two) plus the last row's. The same cents as
 * scheduleWithIof, which clamps no row while the rest is not negative; null when it is (a
 * principal below ~n^2/2 cents), for the caller to run the schedule.
 */
export class SacIof {
  private readonly headOfLevel = new Map<number, number>();

  constructor(
    private readonly n: number,
    private readonly iofParts: Float64Array,
  ) {}

  iofOf(principalCents: number): number | null {
    const { n, iofParts } = this;
    const level = Math.round(principalCents / n);
    const last = principalCents - (n - 1) * level;
    if (last < 0) return null;
    let head = this.headOfLevel.get(level);
    if (head === undefined) {
      head = 0;
      for (let k = 0; k < n - 1; k++) head += iofCents(level, iofParts[k]!);
      this.headOfLevel.set(level, head);
    }
    return head + iofCents(last, iofParts[n - 1]!);
  }
}
