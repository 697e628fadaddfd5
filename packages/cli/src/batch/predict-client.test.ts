import { mkdtempSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { askMany, type BatchAnswer, createRagService, mintAccessToken, type RagService } from "@docqa/core";
import { resolveServerConfig } from "@docqa/http";
import { predictResponse, predictRoutes } from "@docqa/predict-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PredictBody } from "./answer-writer.js";
import { createPredictClient, PredictHttpError, tokenEmail } from "./predict-client.js";

const secret = "client-test-secret";

/** A loopback port nothing listens on (opened, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
const principal = { userName: "ann@x.org", roles: [], groups: [] };
const questions = [
  { id: "wifi", question: "When does the guest Wi-Fi password change?" },
  { id: "parking", question: "Where do visitors park?" },
  { id: "none", question: "What is the airspeed of an unladen swallow?" },
];

describe("createPredictClient against set A", () => {
  let service: RagService;
  let token: string;
  let fetchSetA: typeof fetch;
  beforeAll(async () => {
    service = createRagService({
      config: {
        stores: { dataDir: mkdtempSync(join(tmpdir(), "docqa-client-")) },
        embeddings: { provider: "none" },
        logging: { level: "silent" },
      },
    });
    await service.upsert({
      orgId: "org-1",
      principal,
      uploader: principal.userName,
      documents: {
        wifi: { title: "Wi-Fi", content: "The guest Wi-Fi password changes every Monday.", metadata: { acl: "|user:_all_|" } },
        parking: { title: "Parking", content: "Visitors park on level minus two of the garage.", metadata: { acl: "|user:_all_|" } },
      },
    });
    const server = resolveServerConfig({ jwt: { secret } });
    token = await mintAccessToken(server.jwt, { email: "ann@x.org", orgId: "org-1" });
    const app = predictRoutes(service, { server });
    fetchSetA = ((input: string | URL | Request, init?: RequestInit) => app.request(String(input), init)) as typeof fetch;
  });
  afterAll(() => service.close());

  it("answers a batch over HTTP exactly as in-process through predictResponse", async () => {
    const client = createPredictClient({ server: "http://set-a.test/", token, fetch: fetchSetA });
    const overHttp: BatchAnswer<PredictBody>[] = [];
    for await (const answer of askMany(client, questions, { orgId: "", principal, concurrency: 2 })) overHttp.push(answer);
    const inProcess: BatchAnswer<PredictBody>[] = [];
    const local = { predict: async (request: Parameters<RagService["predict"]>[0]) => predictResponse(await service.predict(request)) };
    for await (const answer of askMany(local, questions, { orgId: "org-1", principal, concurrency: 2 })) inProcess.push(answer);
    expect(overHttp.map((answer) => answer.outcome)).toEqual(["answered", "answered", "abstained"]);
    const comparable = (answer: BatchAnswer<PredictBody>) => {
      const { thread_id: _thread, llm_ms: _llm, ...rest } = answer.result as PredictBody;
      return rest;
    };
    expect(overHttp.map(comparable)).toEqual(inProcess.map(comparable));
    expect(overHttp[0]?.result?.answer.callout_answer).toBe("The guest Wi-Fi password changes every Monday. [Source: doc_1]");
  });

  it("turns error bodies and failed connections into coded errors", async () => {
    const stranger = createPredictClient({ server: "http://set-a.test", token, fetch: fetchSetA });
    const mismatch = await stranger
      .predict({ orgId: "", principal: { ...principal, userName: "bob@x.org" }, query: "Who?" })
      .catch((error: unknown) => error as PredictHttpError);
    expect(mismatch).toBeInstanceOf(PredictHttpError);
    expect([mismatch.code, mismatch.status]).toEqual(["principal_mismatch", 403]);
    expect(mismatch.message).toMatch(/^HTTP 403: user_info\.user_name must be the token's email/);
    const badToken = createPredictClient({ server: "http://set-a.test", token: "not-a-token", fetch: fetchSetA });
    expect(
      (await badToken.predict({ orgId: "", principal, query: "Who?" }).catch((error: unknown) => error as PredictHttpError)).status,
    ).toBe(401);
    const port = await closedPort();
    const closed = createPredictClient({ server: `http://127.0.0.1:${port}`, token });
    const unreachable = await closed.predict({ orgId: "", principal, query: "Who?" }).catch((error: unknown) => error as PredictHttpError);
    expect([unreachable.code, unreachable.status]).toEqual(["server_unreachable", 0]);
    expect(unreachable.message).toBe(`cannot reach http://127.0.0.1:${port}/predict: ECONNREFUSED`);
  });

  it("reads the email claim of a token without verifying it", () => {
    expect(tokenEmail(token)).toBe("ann@x.org");
    expect(tokenEmail("a.b.c")).toBeUndefined();
    expect(tokenEmail("opaque")).toBeUndefined();
  });
});
