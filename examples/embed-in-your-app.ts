/**
 * Using @docqa/core inside your own Node program: store documents, then answer a question as a
 * user, with citations. Run after `npm run build`: `node examples/embed-in-your-app.ts`.
 */
import { createRagService, loadConfig, resolveConfig } from "@docqa/core";

const service = createRagService({ config: resolveConfig({ stores: { dataDir: "./data/example-app" } }, loadConfig()) });
const principal = { userName: "ann@northwind.example", roles: ["employee"], groups: ["engineering"] };

await service.upsert({
  orgId: "northwind",
  principal,
  uploader: principal.userName,
  documents: {
    "printing-guide": {
      title: "Printing guide",
      content: "Print jobs are released with your badge. Colour printing is limited to 200 pages per month.",
      metadata: { acl: "|group:engineering|", source: "intranet" },
    },
  },
});

const result = await service.predict({ orgId: "northwind", principal, query: "How much colour printing may I do?" });
console.log(result.answer.callout_answer);
for (const [key, source] of Object.entries(result.sources)) console.log(`${key}: ${source.title}`);
await service.close();
