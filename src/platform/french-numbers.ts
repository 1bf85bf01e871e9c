// Numbers and amounts as French text, with one formatter for the whole process: building an
// Intl.NumberFormat costs ~20–80 µs (ICU), and a search page formats an amount per record
// (the #18 bench's CPU profile of entreprises.get: 5 % of the service's time went to building
// formatters, one per record).
const WHOLE_NUMBER_FR = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 0 });

/** A number rounded to the unit, French grouping (« 1 234 567 »). */
export function wholeNumberFr(n: number): string {
  return WHOLE_NUMBER_FR.format(n);
}

/** An amount in euros as French text (« 1 234 567 € »). */
export function euros(amount: number): string {
  return `${WHOLE_NUMBER_FR.format(amount)} €`;
}
