// A client side in Node: fetch() sends the case's tools to ANTHROPIC_BASE_URL/v1/messages.
// Reads {"input", "lane", "base_url"} from stdin; prints what the server answered.
let raw = "";
for await (const chunk of process.stdin) raw += chunk;
const job = JSON.parse(raw.split("\n")[0]);
const tools = job.input.tools.map((t) => ({
  name: t.name, ...("description" in t ? { description: t.description } : {}),
  input_schema: t.input_schema ?? { type: "object" },
}));
const body = { max_tokens: 1024, messages: [{ role: "user", content: "Use a tool." }], model: job.lane.model, tools };
const answer = await fetch(`${process.env.ANTHROPIC_BASE_URL}/v1/messages`, {
  method: "POST",
  headers: { "content-type": "application/json", "x-api-key": "sk-ant-test-0000-not-a-real-key",
             "anthropic-version": "2023-06-01" },
  body: JSON.stringify(body),
});
console.log(`answered ${answer.status}: ${await answer.text()}`);
process.exit(answer.ok ? 0 : 1);
