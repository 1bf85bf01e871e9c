// Whether the service is ready for traffic (GET /readyz): listening is not enough on a first
// start, whose demo data and account come some time later. What remains is said by its step.
export interface Readiness {
  readonly ready: boolean;
  /** What the service is still doing, in French (« données de démonstration »), while not ready. */
  readonly step: string | null;
  /** Says what is being done; the service is not ready until `done`. */
  preparing: (step: string) => void;
  done: () => void;
}

export function createReadiness(initialStep: string | null = null): Readiness {
  let step = initialStep;
  return {
    get ready() {
      return step === null;
    },
    get step() {
      return step;
    },
    preparing: (next) => {
      step = next;
    },
    done: () => {
      step = null;
    },
  };
}
