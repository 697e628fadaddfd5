/**
 * A labelled set of `/query` inputs for measuring intent classifiers (issue 6, point 5), written
 * for docqa by hand: 120 messages a user of an organisation's document assistant might send,
 * each with the intent a careful reader would assign under `docs/intents.md`.
 *
 * It deliberately includes hard cases: questions that open with a greeting or thanks, questions
 * containing words the rules treat as signals of another intent ("weather", "delete", "stop"),
 * keyword queries, imperative requests for information ("Explain ..."), commands phrased as
 * questions, and general-knowledge questions the documents cannot answer (`out_of_scope`).
 */
import type { Intent } from "../intent/classify-intent.js";

/** One labelled input. */
export interface IntentExample {
  text: string;
  intent: Intent;
}

/** The labelled set: 50 questions, and 14 of each other intent. */
export const intentExamples: readonly IntentExample[] = [
  // question (50)
  { text: "How many vacation days do I get per year?", intent: "question" },
  { text: "What is the travel reimbursement policy?", intent: "question" },
  { text: "Who approves overtime requests?", intent: "question" },
  { text: "When is the deadline for submitting expense reports?", intent: "question" },
  { text: "Where can I find the onboarding checklist?", intent: "question" },
  { text: "Is remote work allowed on Fridays?", intent: "question" },
  { text: "Can contractors access the internal wiki?", intent: "question" },
  { text: "Does the company pay for professional certifications?", intent: "question" },
  { text: "Which VPN client should I install?", intent: "question" },
  { text: "What happens to unused vacation days at the end of the year?", intent: "question" },
  { text: "parental leave policy", intent: "question" },
  { text: "password rotation requirements", intent: "question" },
  { text: "expense limit for client dinners", intent: "question" },
  { text: "Q3 security incident report", intent: "question" },
  { text: "laptop replacement cycle", intent: "question" },
  { text: "Explain the performance review process.", intent: "question" },
  { text: "Describe the escalation path for a production outage.", intent: "question" },
  { text: "Summarize the data retention policy.", intent: "question" },
  { text: "List the holidays observed in the Berlin office.", intent: "question" },
  { text: "Tell me about the employee referral bonus.", intent: "question" },
  { text: "Give me the steps to request a new software license.", intent: "question" },
  { text: "Compare the two health insurance plans.", intent: "question" },
  { text: "I need to know how to book a meeting room", intent: "question" },
  { text: "I'd like to understand the bonus calculation", intent: "question" },
  { text: "Hi, how many sick days can I take without a doctor's note?", intent: "question" },
  { text: "Hello! Where is the fire assembly point?", intent: "question" },
  { text: "Good morning, what time does the cafeteria open?", intent: "question" },
  { text: "Thanks! And what about the dental coverage?", intent: "question" },
  { text: "What is the bad weather policy for office closures?", intent: "question" },
  { text: "How do I delete a customer record under GDPR?", intent: "question" },
  { text: "What is the procedure to stop a payment that was sent by mistake?", intent: "question" },
  { text: "How do I reset my badge PIN?", intent: "question" },
  { text: "How do I upload receipts to the expense tool?", intent: "question" },
  { text: "Are stock options part of the compensation package?", intent: "question" },
  { text: "What does the handbook say about side jobs?", intent: "question" },
  { text: "who is the data protection officer", intent: "question" },
  { text: "maximum hotel rate in London", intent: "question" },
  { text: "Do I need approval to work from another country for two weeks?", intent: "question" },
  { text: "What should I do if I lose my company phone?", intent: "question" },
  { text: "How long are backups kept?", intent: "question" },
  { text: "What are the steps of the incident response plan and who leads it?", intent: "question" },
  { text: "Is there a dress code for customer visits", intent: "question" },
  { text: "What's the notice period for resignation?", intent: "question" },
  { text: "How is on-call compensation calculated?", intent: "question" },
  { text: "Could you find the policy on gifts from suppliers?", intent: "question" },
  { text: "Any rules about using personal email for work?", intent: "question" },
  { text: "Requirements for the annual compliance training", intent: "question" },
  { text: "What did the last board memo say about hiring?", intent: "question" },
  { text: "Show me the guidelines for public speaking on behalf of the company", intent: "question" },
  { text: "Which documents do I need for a visa invitation letter?", intent: "question" },

  // greeting (14)
  { text: "hi", intent: "greeting" },
  { text: "Hello!", intent: "greeting" },
  { text: "hey there", intent: "greeting" },
  { text: "Good morning", intent: "greeting" },
  { text: "good afternoon everyone", intent: "greeting" },
  { text: "Good evening, team", intent: "greeting" },
  { text: "howdy", intent: "greeting" },
  { text: "Hi bot", intent: "greeting" },
  { text: "Greetings!", intent: "greeting" },
  { text: "yo", intent: "greeting" },
  { text: "Morning!", intent: "greeting" },
  { text: "hello hello", intent: "greeting" },
  { text: "Hiya", intent: "greeting" },
  { text: "Hey, good to see you", intent: "greeting" },

  // small_talk (14)
  { text: "How are you?", intent: "small_talk" },
  { text: "who are you", intent: "small_talk" },
  { text: "What's your name?", intent: "small_talk" },
  { text: "Tell me a joke", intent: "small_talk" },
  { text: "bye", intent: "small_talk" },
  { text: "Goodbye!", intent: "small_talk" },
  { text: "see you tomorrow", intent: "small_talk" },
  { text: "Are you a bot?", intent: "small_talk" },
  { text: "How's it going?", intent: "small_talk" },
  { text: "what's up", intent: "small_talk" },
  { text: "Are you human?", intent: "small_talk" },
  { text: "Do you like music?", intent: "small_talk" },
  { text: "I'm bored", intent: "small_talk" },
  { text: "Have a nice weekend!", intent: "small_talk" },

  // feedback (14)
  { text: "thanks", intent: "feedback" },
  { text: "Thank you so much!", intent: "feedback" },
  { text: "That answer was wrong", intent: "feedback" },
  { text: "not helpful", intent: "feedback" },
  { text: "Perfect, that's what I needed", intent: "feedback" },
  { text: "great answer", intent: "feedback" },
  { text: "ok got it", intent: "feedback" },
  { text: "very helpful, thanks", intent: "feedback" },
  { text: "wrong", intent: "feedback" },
  { text: "thx!", intent: "feedback" },
  { text: "This is incorrect, the policy changed last year", intent: "feedback" },
  { text: "The answer is outdated", intent: "feedback" },
  { text: "You missed the part about contractors", intent: "feedback" },
  { text: "Awesome, cheers", intent: "feedback" },

  // command (14)
  { text: "Delete my conversation history", intent: "command" },
  { text: "upload this file to the HR folder", intent: "command" },
  { text: "Reset my session", intent: "command" },
  { text: "Forget what I said earlier", intent: "command" },
  { text: "Send this answer to my manager", intent: "command" },
  { text: "Export the chat as PDF", intent: "command" },
  { text: "Please clear the conversation", intent: "command" },
  { text: "Schedule a meeting with HR tomorrow at 10", intent: "command" },
  { text: "log out", intent: "command" },
  { text: "Create a ticket for IT about my broken monitor", intent: "command" },
  { text: "email me the summary", intent: "command" },
  { text: "Cancel my last upload", intent: "command" },
  { text: "Can you book me a flight to Madrid next Monday?", intent: "command" },
  { text: "Remind me to submit my timesheet on Friday", intent: "command" },

  // out_of_scope (14)
  { text: "What's the weather in Paris tomorrow?", intent: "out_of_scope" },
  { text: "bitcoin price today", intent: "out_of_scope" },
  { text: "Who won the football match last night?", intent: "out_of_scope" },
  { text: "Give me a recipe for lasagna", intent: "out_of_scope" },
  { text: "What is the stock price of Apple?", intent: "out_of_scope" },
  { text: "What's my horoscope for today?", intent: "out_of_scope" },
  { text: "movie times for tonight", intent: "out_of_scope" },
  { text: "lottery numbers for this week", intent: "out_of_scope" },
  { text: "Write me a poem about cats", intent: "out_of_scope" },
  { text: "What is the capital of Australia?", intent: "out_of_scope" },
  { text: "Translate 'good luck' into Japanese", intent: "out_of_scope" },
  { text: "Solve 3x + 5 = 20", intent: "out_of_scope" },
  { text: "Who is the president of Brazil?", intent: "out_of_scope" },
  { text: "Recommend a good sci-fi novel", intent: "out_of_scope" },
];
