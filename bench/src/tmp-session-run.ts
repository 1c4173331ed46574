import { printTable } from "./measure.js";
import { sessionBench } from "./session.js";

printTable("session", await sessionBench());
