// The entry of the page tern serve serves at `/`.
import { render } from "preact";
import "./style.css";
import { App } from "./ui/app.js";

render(<App />, document.getElementById("app")!);
