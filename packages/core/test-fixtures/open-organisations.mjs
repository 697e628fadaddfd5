// Child process of the descriptor-limit test (run under a low `ulimit -n`): writes one document
// into each of N organisations with the given MAX_OPEN_ORGANISATIONS, then reads each back, and
// prints one JSON line: how many succeeded, the first error's code and message, and the files
// open at the end. Uses the built package.
import { createEmbeddedStore } from "../dist/index.js";

const [dataDir, organisations, maxOpen] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const store = createEmbeddedStore({ dataDir, maxOpenOrganisations: maxOpen });
let written = 0;
let read = 0;
let failure;
for (let index = 0; index < organisations; index++) {
  const orgId = `org-${index}`;
  const docId = `doc-${index}`;
  try {
    await store.upsert(orgId, [
      {
        docId,
        contentHash: `${docId}-v1`,
        chunks: [
          {
            id: `${docId}::0`,
            docId,
            chunkIndex: 0,
            text: `organisation ${index} keeps its own text`,
            title: docId,
            source: "test",
            ownerId: "owner@example.org",
            acl: "|user:_all_|",
            metadata: {},
            contentHash: `${docId}-v1`,
          },
        ],
      },
    ]);
    written++;
  } catch (error) {
    failure ??= { code: error.code, message: error.message };
  }
}
for (let index = 0; index < organisations; index++) {
  try {
    if ((await store.count(`org-${index}`)) === 1) read++;
  } catch (error) {
    failure ??= { code: error.code, message: error.message };
  }
}
process.stdout.write(`${JSON.stringify({ written, read, open: store.openOrganisations(), failure })}\n`);
await store.close();
