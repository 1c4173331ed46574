// The models a server offers: a fixed list with a default, or @tern/ai's ModelRegistry.

import type { Model, ModelRegistry } from "@tern/ai";
import type { ModelCatalog } from "../types.js";

/** A catalog of `models`; the first is the default. Ids match `id` or `provider/id`. */
export function modelCatalog(models: Model[]): ModelCatalog {
  return {
    list: () => models,
    resolve: (id) => (id === undefined ? models[0] : models.find((model) => matches(model, id))),
  };
}

/** The registry's models, with `defaultModel` first (a model outside the registry is fine). */
export function registryCatalog(registry: ModelRegistry, defaultModel: Model): ModelCatalog {
  const all = () => [defaultModel, ...registry.list().filter((model) => !sameModel(model, defaultModel))];
  return {
    list: all,
    resolve: (id) => (id === undefined ? defaultModel : all().find((model) => matches(model, id))),
  };
}

function matches(model: Model, id: string): boolean {
  return model.id === id || `${model.provider}/${model.id}` === id;
}

function sameModel(a: Model, b: Model): boolean {
  return a.id === b.id && a.provider === b.provider;
}
