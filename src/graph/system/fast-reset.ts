// Fast reset (POST /system): initiateDatabaseReset hands out a token valid for 60 minutes (only
// the latest one counts); performDatabaseReset with that token empties the graph.
// https://docs.aws.amazon.com/neptune/latest/userguide/manage-console-fast-reset.html
import { randomUUID } from 'node:crypto';
import { InvalidParameterException, MissingParameterException } from '../../generated/neptunedata/errors.js';

export const RESET_TOKEN_TTL_MS = 60 * 60 * 1000;

export class FastResetTokens {
  #token: { value: string; expiresAt: number } | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** A new token; any earlier one stops being valid. */
  initiate(): string {
    const value = randomUUID();
    this.#token = { value, expiresAt: this.now() + RESET_TOKEN_TTL_MS };
    return value;
  }

  /** Checks and consumes the token, or throws Neptune's error for it. */
  consume(token: string | undefined): void {
    if (token === undefined || token === '') {
      throw new MissingParameterException("Missing system command parameter 'token' for action 'performDatabaseReset'");
    }
    const t = this.#token;
    if (!t || t.value !== token || this.now() > t.expiresAt) {
      throw new InvalidParameterException(
        `System command parameter 'token' : '${token}' does not match database reset token`,
      );
    }
    this.#token = undefined;
  }
}
