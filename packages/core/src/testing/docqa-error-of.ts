/** `docqaErrorOf`: the {@link DocqaError} a promise rejects with, for asserting its code and message. */
import { DocqaError } from "../errors/docqa-error.js";

/**
 * Awaits `promise` and returns the {@link DocqaError} it rejects with.
 *
 * @throws the rejection when it is not a `DocqaError`, or an `Error` when the promise resolves.
 */
export async function docqaErrorOf(promise: Promise<unknown>): Promise<DocqaError> {
  try {
    await promise;
  } catch (error) {
    if (DocqaError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a DocqaError");
}
