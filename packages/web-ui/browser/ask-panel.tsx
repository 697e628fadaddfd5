/**
 * Ask: a thread of questions and answers. Each answer shows its callout, supporting points,
 * caveats and further information with numbered citations; each citation opens its source (the
 * cited passage with the sentences the answer drew on highlighted, the document's title, file name
 * and place in the file). A follow-up continues the thread (the
 * service rewrites it to stand alone); an abstention is shown as such, never as an answer.
 */
import { useRef, useState } from "preact/hooks";
import type { AnswerSegment, UiAnswer, UiSource } from "../src/ui-api-types.ts";
import { type ApiClient, messageOf } from "./api-client.ts";

interface Turn {
  id: number;
  question: string;
  answer?: UiAnswer | undefined;
  error?: string | undefined;
}

const abstentionReasons: Record<string, string> = {
  no_documents: "none of the documents you may read matches the question",
  not_answerable: "the matching passages do not answer the question",
  low_relevance: "the closest passages are not relevant enough",
};

function Segments({ segments, onCite }: { segments: AnswerSegment[]; onCite(number: number): void }) {
  return (
    <>
      {segments.map((segment, index) =>
        "text" in segment ? (
          <span key={index}>{segment.text}</span>
        ) : (
          <span key={index} class="cites">
            {segment.cite.map((number) => (
              <button
                type="button"
                key={number}
                class="cite"
                data-testid="citation"
                title={`Show source ${number}`}
                onClick={() => onCite(number)}
              >
                {number}
              </button>
            ))}
          </span>
        ),
      )}
    </>
  );
}

function Points({ title, items, onCite }: { title: string; items: AnswerSegment[][]; onCite(number: number): void }) {
  if (items.length === 0) return null;
  return (
    <div class="points">
      <h4>{title}</h4>
      <ul>
        {items.map((item, index) => (
          <li key={index}>
            <Segments segments={item} onCite={onCite} />
          </li>
        ))}
      </ul>
    </div>
  );
}

function SourceItem({ source, open, onToggle }: { source: UiSource; open: boolean; onToggle(open: boolean): void }) {
  return (
    <details
      class="source"
      id={`source-${source.key}`}
      data-testid="source"
      open={open}
      onToggle={(event) => onToggle((event.currentTarget as HTMLDetailsElement).open)}
    >
      <summary>
        <span class="number">{source.number}</span>
        <span class="title">{source.title}</span>
        <span class="file" data-testid="source-file">
          {source.fileName}
          {source.location ? `, ${source.location}` : ""}
        </span>
      </summary>
      <blockquote data-testid="source-passage">
        <Passage text={source.passage} cited={source.cited} />
      </blockquote>
    </details>
  );
}

/** The passage with the sentences the answer drew on marked (`cited`: ranges in passage order). */
function Passage({ text, cited }: { text: string; cited: UiSource["cited"] }) {
  const parts: preact.ComponentChildren[] = [];
  let at = 0;
  for (const { start, end } of cited) {
    if (start > at) parts.push(text.slice(at, start));
    parts.push(
      <mark key={start} data-testid="cited-sentence">
        {text.slice(start, end)}
      </mark>,
    );
    at = end;
  }
  parts.push(text.slice(at));
  return <>{parts}</>;
}

function AnswerCard({ answer }: { answer: UiAnswer }) {
  const [openSources, setOpenSources] = useState<Set<number>>(new Set());
  const card = useRef<HTMLDivElement>(null);
  const toggle = (number: number, open: boolean) =>
    setOpenSources((current) => {
      const next = new Set(current);
      if (open) next.add(number);
      else next.delete(number);
      return next;
    });
  const cite = (number: number) => {
    toggle(number, true);
    const source = answer.sources.find((candidate) => candidate.number === number);
    if (source) requestAnimationFrame(() => card.current?.querySelector(`#source-${source.key}`)?.scrollIntoView({ block: "nearest" }));
  };
  if (answer.abstained) {
    return (
      <div class="answer abstained" data-testid="answer" data-abstained="true" ref={card}>
        <p class="badge">Not in your documents</p>
        <p class="callout">
          <Segments segments={answer.callout} onCite={cite} />
        </p>
        <p class="hint">
          {answer.abstentionReason ? `Why: ${abstentionReasons[answer.abstentionReason] ?? answer.abstentionReason}. ` : ""}
          Try other words, or upload the document that answers it.
        </p>
      </div>
    );
  }
  return (
    <div class="answer" data-testid="answer" data-abstained="false" ref={card}>
      <p class="callout" data-testid="callout">
        <Segments segments={answer.callout} onCite={cite} />
      </p>
      <Points title="Supporting points" items={answer.positives} onCite={cite} />
      <Points title="Caveats" items={answer.caveats} onCite={cite} />
      <Points title="Further information" items={answer.information} onCite={cite} />
      {answer.sources.length > 0 && (
        <div class="sources">
          <h4>Sources</h4>
          {answer.sources.map((source) => (
            <SourceItem
              key={source.key}
              source={source}
              open={openSources.has(source.number)}
              onToggle={(open) => toggle(source.number, open)}
            />
          ))}
        </div>
      )}
      <p class="meta">
        {answer.answerMode} answer in {answer.totalMs} ms
        {answer.query ? ` · searched for “${answer.query}”` : ""}
      </p>
    </div>
  );
}

export function AskPanel({ api }: { api: ApiClient }) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [threadId, setThreadId] = useState<string | undefined>();
  const [question, setQuestion] = useState("");
  const [busy, setBusy] = useState(false);
  const nextId = useRef(0);

  const ask = async () => {
    const text = question.trim();
    if (text === "") return;
    const id = nextId.current++;
    setTurns((current) => [...current, { id, question: text }]);
    setQuestion("");
    setBusy(true);
    try {
      const answer = await api.ask(text, threadId);
      setThreadId(answer.threadId);
      setTurns((current) => current.map((turn) => (turn.id === id ? { ...turn, answer } : turn)));
    } catch (error) {
      setTurns((current) => current.map((turn) => (turn.id === id ? { ...turn, error: messageOf(error) } : turn)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="ask">
      <div class="thread" data-testid="thread">
        {turns.length === 0 && (
          <p class="hint">Ask a question about your organisation's documents. Follow-up questions continue the thread.</p>
        )}
        {turns.map((turn) => (
          <article class="turn" key={turn.id} data-testid="turn">
            <p class="question" data-testid="question">
              {turn.question}
            </p>
            {turn.answer ? (
              <AnswerCard answer={turn.answer} />
            ) : turn.error ? (
              <p class="problem" role="alert">
                {turn.error}
              </p>
            ) : (
              <p class="pending">Searching your documents…</p>
            )}
          </article>
        ))}
      </div>
      <form
        class="composer"
        onSubmit={(event) => {
          event.preventDefault();
          void ask();
        }}
      >
        <textarea
          data-testid="question-input"
          rows={2}
          placeholder={threadId ? "Ask a follow-up question" : "Ask a question"}
          value={question}
          onInput={(event) => setQuestion(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === "Enter" && !event.shiftKey) {
              event.preventDefault();
              void ask();
            }
          }}
        />
        <div class="actions">
          <button type="submit" data-testid="ask" disabled={busy || question.trim() === ""}>
            Ask
          </button>
          <button
            type="button"
            class="secondary"
            data-testid="new-thread"
            disabled={busy || turns.length === 0}
            onClick={() => {
              setTurns([]);
              setThreadId(undefined);
            }}
          >
            New thread
          </button>
        </div>
      </form>
    </div>
  );
}
