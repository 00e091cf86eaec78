// The signatures of every activity a process may run. Implementations live in activities/ (side effects);
// processes see only these types.

export type AttemptResult =
  | { done: true; status: 'succeeded' | 'failed' }
  | { done: false; nextDelayMs: number };

export interface Activities {
  /**
   * Sends one attempt of a delivery (or answers from the record if this attempt already ran), records it,
   * and settles the delivery when it succeeded, cannot succeed (endpoint gone, disabled or deleted) or was
   * the last one. `nextDelayMs` is the schedule's next delay; a Retry-After may lengthen it.
   */
  attemptDelivery(input: { deliveryId: string; attempt: number; nextDelayMs: number | null }): Promise<AttemptResult>;
}
