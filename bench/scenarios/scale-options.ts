/**
 * How big and how long a run is: `--quick` shrinks every scenario for a smoke test.
 *
 * @module
 */

/** Size and round multipliers every scenario reads. */
export interface Scale {
  /** Multiplies call counts (1 for the real run). */
  readonly size: number;
  /** The number of rounds to use where `full` would be used in a real run. */
  rounds(full: number): number;
  /** Seconds each side of the HTTP scenario runs. */
  readonly httpSeconds: number;
}
