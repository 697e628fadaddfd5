// Child process of the crash-safety test: rewrites every document of an organisation, version
// after version, each version in one upsert, until it is killed. Uses the built package.
import { createEmbeddedStore } from "../dist/index.js";

const [dataDir, documentCount, chunksPerDocument] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const store = createEmbeddedStore({ dataDir });
const filler = "lorem ipsum dolor sit amet consectetur adipiscing elit ".repeat(8);
for (let version = 1; ; version++) {
  const documents = [];
  for (let document = 0; document < documentCount; document++) {
    const docId = `doc-${document}`;
    const contentHash = `${docId}-v${version}`;
    const chunks = [];
    for (let chunkIndex = 0; chunkIndex < chunksPerDocument; chunkIndex++) {
      chunks.push({
        id: `${docId}::${chunkIndex}`,
        docId,
        chunkIndex,
        text: `version ${version} chunk ${chunkIndex} ${filler}`,
        title: docId,
        source: "crash-test",
        ownerId: "owner@example.org",
        acl: "|user:_all_|",
        metadata: { version },
        contentHash,
      });
    }
    documents.push({ docId, contentHash, chunks });
  }
  await store.upsert("crash-org", documents);
  process.stdout.write(`committed ${version}\n`);
}
