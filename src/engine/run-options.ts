/** The options every run command of every front end takes, as the engine receives them. */
export interface RunOptions {
  readonly out: string;
  /** The run store: where every run is recorded and `cairn history` reads. */
  readonly stateDir?: string | undefined;
  /** `--store`: a postgres:// URL or a store directory (default: $CAIRN_STORE, else the state dir). */
  readonly store?: string | undefined;
  /** Most resources acting at once. */
  readonly jobs: number;
  /** Exit 2 when the run succeeded with changes (made, pending or drifted). */
  readonly detailedExitcode: boolean;
  /** Seconds to wait for another run holding the same store. */
  readonly lockTimeout: number;
}
