/**
 * Entry of the docqa web page (bundled by tsup into `dist/browser/app.js`): renders the
 * application into `#app`.
 */
import { render } from "preact";
import { App } from "./app.tsx";
import "./app.css";

const root = document.getElementById("app");
if (root) {
  root.replaceChildren();
  render(<App />, root);
}
