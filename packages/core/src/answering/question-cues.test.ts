import { describe, expect, it } from "vitest";
import { createEnglishAnalyzer } from "../text/analyzer.js";
import {
  asksProcedure,
  constraintsOf,
  contradiction,
  countedNoun,
  expectedAnswerType,
  isCommandLine,
  isNegated,
  offersAnswerType,
  questionConstraints,
  questionFocus,
  statesCount,
  substitution,
} from "./question-cues.js";

describe("expectedAnswerType", () => {
  it("reads number, date and entity cues from the question's wording", () => {
    expect(expectedAnswerType("How many vacation days do new employees get?")).toBe("number");
    expect(expectedAnswerType("How long must passwords be?")).toBe("number");
    expect(expectedAnswerType("When is the IT help desk open?")).toBe("date");
    expect(expectedAnswerType("In what year did the Normans reach Italy?")).toBe("date");
    expect(expectedAnswerType("Who approves a vacation request?")).toBe("entity");
    expect(expectedAnswerType("Where is the help desk?")).toBe("entity");
    expect(expectedAnswerType("What is the dress code?")).toBeNull();
  });

  it("reads a question for a command as asking for code, and not 'what function' or 'what method', which prose asks too", () => {
    expect(expectedAnswerType("Which command lists the installed toolchains?")).toBe("code");
    expect(expectedAnswerType("What shell command prints the version?")).toBe("code");
    expect(expectedAnswerType("What function does the bridge's tower serve?")).toBeNull();
    expect(expectedAnswerType("What method did the farmers use to clear the field?")).toBeNull();
  });
});

describe("offersAnswerType", () => {
  it("needs a value of the type that the question does not already state", () => {
    expect(offersAnswerType("New employees receive 20 vacation days.", "How many vacation days?", "number")).toBe(true);
    expect(offersAnswerType("Employees receive twenty days of leave.", "How many days of leave?", "number")).toBe(true);
    expect(offersAnswerType("Vacation days are requested in the portal.", "How many vacation days?", "number")).toBe(false);
    // The only number is the question's own.
    expect(offersAnswerType("In 2019 the policy changed.", "How many days applied in 2019?", "number")).toBe(false);
    expect(offersAnswerType("The help desk opens at 8:00 on Mondays.", "When does the help desk open?", "date")).toBe(true);
    expect(offersAnswerType("Requests are approved by the Head of People.", "Who approves requests?", "entity")).toBe(true);
    expect(offersAnswerType("requests are approved by your manager.", "Who approves requests?", "entity")).toBe(false);
    expect(offersAnswerType("Anything.", "What is it?", null)).toBeNull();
  });

  it("does not take a number for the person 'who' asks for, but does for 'where'", () => {
    expect(offersAnswerType("year_of_discovery: 1774", "Who discovered oxygen?", "entity")).toBe(false);
  });

  it("needs an inline code span for code, other than the question's own words", () => {
    const question = "Which command lists the installed toolchains?";
    expect(offersAnswerType("Run `tc list` to list the installed toolchains.", question, "code")).toBe(true);
    expect(offersAnswerType("Each installed toolchain is listed with its version.", question, "code")).toBe(false);
    expect(offersAnswerType("The `toolchains` are listed when installed.", question, "code")).toBe(false);
    expect(offersAnswerType("The office is at 221 lake road.", "Where is the office?", "entity")).toBe(true);
  });
});

describe("contradiction", () => {
  it("finds a question word replaced by its opposite in the sentence", () => {
    expect(contradiction("What is the least common form of art?", "The most common form of art is the mosaic.")).toBe("least");
    expect(contradiction("What happened after the war?", "Before the war the town grew.")).toBe("after");
  });

  it("finds a negating prefix on either side", () => {
    expect(contradiction("Which definitions are uncomplicated?", "Some classes have complicated definitions.")).toBe("uncomplicated");
    expect(contradiction("Which classes are equal?", "The classes are unequal.")).toBe("equal");
  });

  it("finds nothing when the sentence keeps the question's words", () => {
    expect(
      contradiction("What is the most common form?", "The most common form is the mosaic, the least common the fresco."),
    ).toBeUndefined();
    expect(contradiction("How many vacation days do new employees get?", "New employees receive 20 vacation days.")).toBeUndefined();
  });
});

describe("questionConstraints", () => {
  it("lists the question's names and numbers, not its first word nor 'I'", () => {
    expect(questionConstraints("Who led the Norman army in 1066?")).toEqual(["norman", "1066"]);
    expect(questionConstraints("Can I carry over four days?")).toEqual(["four"]);
    expect(questionConstraints("What is the capital city of Mongolia?")).toEqual(["mongolia"]);
    expect(questionConstraints("how many days?")).toEqual([]);
  });
});

describe("constraintsOf", () => {
  const analyzer = createEnglishAnalyzer();
  const met = (question: string, text: string) =>
    constraintsOf(question, (value) => analyzer.analyze(value)).map((constraint) => [
      constraint.word,
      constraint.met(new Set(analyzer.analyze(text)), text),
    ]);

  it("meets numbers by their digits, also decades, ordinals and number words", () => {
    expect(met("How many Huguenots fled by the 1700s?", "By 1700 the Huguenots had fled.")).toEqual([
      ["huguenots", true],
      ["1700s", true],
    ]);
    expect(met("Who played the Doctor in the 70's?", "In 1970 he played the Doctor.")).toEqual([
      ["doctor", true],
      ["70's", false],
    ]);
    expect(met("What happened in the 10th series?", "The 10th series began.")).toEqual([["10th", true]]);
    expect(met("Which four classes exist?", "There are 4 classes.")).toEqual([["four", true]]);
    expect(met("What happened in 1066?", "It happened in 1067.")).toEqual([["1066", false]]);
  });

  it("meets an acronym by the initials of capitalised words, and a name despite one typo or a shared stem", () => {
    expect(met("Which UN secretary studied here?", "A United Nations secretary studied here.")).toEqual([["un", true]]);
    // "it" is a stop word: the acronym is found in the text as written.
    expect(met("When is the IT help desk open?", "The IT help desk is open from 8:00.")).toEqual([["it", true]]);
    expect(met("When was the Maastrich Treaty signed?", "The Maastricht Treaty was signed in 1992.")).toEqual([
      ["maastrich", true],
      ["treaty", true],
    ]);
    expect(met("Which famous Indian practiced it?", "Gandhi led India to independence.")).toEqual([["indian", true]]);
    expect(met("Who led the Vikings?", "Rollo led the Normans.")).toEqual([["vikings", false]]);
  });
});

describe("isNegated", () => {
  it("recognises negations", () => {
    expect(isNegated("Alcohol is not reimbursed.")).toBe(true);
    expect(isNegated("You can't carry over days.")).toBe(true);
    expect(isNegated("Rust strings don\u2019t support indexing.")).toBe(true);
    expect(isNegated("Meals are reimbursed.")).toBe(false);
    // A disjunction mentions a negation without negating.
    expect(isNegated("Can a problem be solved or not?")).toBe(false);
    expect(isNegated("Whether or not the machine may or may not halt, it is not decidable.")).toBe(true);
  });
});

describe("countedNoun and statesCount", () => {
  const analyzer = createEnglishAnalyzer();
  const analyze = (text: string) => analyzer.analyze(text);

  it("takes the last word of the noun phrase after 'how many'", () => {
    expect(countedNoun("How many trucks were used for the delivery of water?")).toBe("trucks");
    expect(countedNoun("How many vacation days do new employees get?")).toBe("days");
    expect(countedNoun("How many Stanley Cups have the Maple Leafs won?")).toBe("cups");
    expect(countedNoun("How many hours a day should a puppy sleep?")).toBe("hours");
    expect(countedNoun("How much did Mike Walker pay?")).toBeUndefined();
    expect(countedNoun("What is the atomic number of oxygen?")).toBeUndefined();
  });

  it("needs a number before the counted noun, or a numeric field named after it", () => {
    expect(statesCount("A total of 3 trucks were used for 15 hours.", "trucks", analyze)).toBe(true);
    expect(statesCount("There were 20,000 bottles of water and 200 laptops.", "trucks", analyze)).toBe(false);
    expect(statesCount("Passwords contain at least 8 alphanumeric characters.", "characters", analyze)).toBe(true);
    expect(statesCount("Anna Pavlovna had had a cough for some days.", "days", analyze)).toBe(false);
    expect(statesCount("airline: Aeroflot*; incidents_85_99: 76; fatal_accidents_85_99: 14", "accidents", analyze)).toBe(true);
    expect(statesCount("airline: Aeroflot*; fatal_accidents_85_99: unknown", "accidents", analyze)).toBe(false);
  });
});

describe("questionFocus", () => {
  it("is the noun phrase after what, which or how many/much, at most three words", () => {
    expect(questionFocus("What city has a radio station called the Wolf?")).toEqual(["city"]);
    expect(questionFocus("What is the boiling point of ethanol?")).toEqual(["boiling", "point"]);
    expect(questionFocus("How many countries had at least $1 billion in box office?")).toEqual(["countries"]);
    expect(questionFocus("Which of the teams in the league has a new coach?")).toEqual(["teams"]);
  });

  it("is undefined for questions without one", () => {
    expect(questionFocus("Who wrote the report?")).toBeUndefined();
    expect(questionFocus("When does the office open?")).toBeUndefined();
  });
});

describe("substitution", () => {
  const analyzer = createEnglishAnalyzer();
  const analyze = (text: string) => analyzer.analyze(text);

  it("finds a question word replaced by another content word between the same words", () => {
    expect(
      substitution("How is time taken expressed as a function of x?", "The time taken can be expressed as a function of n.", analyze),
    ).toBe("x");
    expect(
      substitution("What is the oldest work of Norman art?", "By far the most famous work of Norman art is the Bayeux Tapestry.", analyze),
    ).toBeUndefined();
  });

  it("ignores question words, modal verbs, numbers and words the sentence has in another form", () => {
    expect(
      substitution("How many unused vacation days can be carried over?", "Up to five unused vacation days may be carried over.", analyze),
    ).toBeUndefined();
    expect(
      substitution("When did Edward return?", "When finally Edward the Confessor returned from his father's refuge in 1041.", analyze),
    ).toBeUndefined();
    expect(substitution("Who won in 1999 the title?", "Smith won in 2003 the title.", analyze)).toBeUndefined();
  });
});

describe("asksProcedure and isCommandLine", () => {
  it("reads how-to questions and shell prompts", () => {
    expect(asksProcedure("How do I install Rust?")).toBe(true);
    expect(asksProcedure("how to reset the password")).toBe(true);
    expect(asksProcedure("How does ownership work?")).toBe(false);
    expect(isCommandLine("$ curl --proto '=https' https://sh.rustup.rs -sSf | sh")).toBe(true);
    expect(isCommandLine("The price is $ 5.")).toBe(false);
  });
});
