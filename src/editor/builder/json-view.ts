/**
 * The JSON view: the editor's own code editor (monaco, or ace when the user chose it) holding the query as
 * pretty-printed text. With monaco, the query's JSON schema (generated from the same table as the forms) is
 * attached to this editor's model only, and errors are marked at their line.
 */

/** The few monaco members used here (monaco is a global of the editor page when it is the code editor). */
interface MonacoLike {
  languages: {
    json: {
      jsonDefaults: {
        diagnosticsOptions?: { schemas?: Array<{ uri: string; fileMatch?: string[]; schema?: unknown }> } & Record<
          string,
          unknown
        >;
        setDiagnosticsOptions(options: Record<string, unknown>): void;
      };
    };
  };
  editor: {
    setModelMarkers(model: unknown, owner: string, markers: Array<Record<string, unknown>>): void;
  };
  MarkerSeverity: { Error: number };
}

function monacoGlobal(): MonacoLike | undefined {
  return (window as unknown as { monaco?: MonacoLike }).monaco;
}

const SCHEMA_URI = 'tb-query://schema/';

export class JsonView {
  readonly element: JQuery;
  private editor: TbCodeEditor | undefined;
  private modelUri: string | undefined;
  private muted = false;

  constructor(
    parent: JQuery,
    private readonly onText: (text: string) => void,
  ) {
    this.element = $('<div class="tb-b-json-wrap">').attr('data-tb-json', '').appendTo(parent);
  }

  /** Creates the code editor on first use (it needs to be visible to size itself). */
  show(text: string, schema: Record<string, unknown> | undefined): void {
    this.element.show();
    if (!this.editor) {
      const box = $('<div class="tb-b-json">').appendTo(this.element);
      this.editor = RED.editor.createEditor({
        element: box[0],
        mode: 'ace/mode/json',
        value: text,
        stateId: false,
        minimap: { enabled: false },
      });
      this.editor.on('change', () => {
        if (!this.muted && this.editor) this.onText(this.editor.getValue());
      });
      // The browser tests reach the code editor through this element (a stable hook, like data-tb-*).
      this.element.data('tb-editor', this.editor);
      const model = this.editor.getModel ? this.editor.getModel() : null;
      this.modelUri = model ? model.uri.toString() : undefined;
    } else {
      this.setText(text);
    }
    this.setSchema(schema);
    this.editor.resize();
  }

  hide(): void {
    this.element.hide();
  }

  get visible(): boolean {
    return this.element.is(':visible');
  }

  text(): string {
    return this.editor ? this.editor.getValue() : '';
  }

  setText(text: string): void {
    if (!this.editor || this.editor.getValue() === text) return;
    this.muted = true;
    try {
      this.editor.setValue(text, -1);
    } finally {
      this.muted = false;
    }
  }

  /** Marks an error at a line and column (1-based) of the text, or clears the marks. */
  mark(error: { line: number; column: number; message: string } | undefined): void {
    if (!this.editor) return;
    const monaco = monacoGlobal();
    const model = this.editor.getModel ? this.editor.getModel() : null;
    if (monaco && model) {
      monaco.editor.setModelMarkers(
        model,
        'tb-query',
        error
          ? [
              {
                startLineNumber: error.line,
                startColumn: error.column,
                endLineNumber: error.line,
                endColumn: error.column + 1,
                message: error.message,
                severity: monaco.MarkerSeverity.Error,
              },
            ]
          : [],
      );
      return;
    }
    const session = this.editor.getSession ? this.editor.getSession() : undefined;
    session?.setAnnotations?.(
      error ? [{ row: error.line - 1, column: error.column - 1, text: error.message, type: 'error' }] : [],
    );
  }

  /** Attaches the JSON schema to this editor's model (monaco only), keeping every other schema as it was. */
  private setSchema(schema: Record<string, unknown> | undefined): void {
    const monaco = monacoGlobal();
    if (!monaco || !this.modelUri || !schema) return;
    const defaults = monaco.languages.json.jsonDefaults;
    const current = defaults.diagnosticsOptions ?? {};
    const uri = `${SCHEMA_URI}${encodeURIComponent(this.modelUri)}`;
    const others = (current.schemas ?? []).filter((s) => s.uri !== uri);
    defaults.setDiagnosticsOptions({
      ...current,
      validate: true,
      schemas: [...others, { uri, fileMatch: [this.modelUri], schema }],
    });
  }

  resize(): void {
    this.editor?.resize();
  }

  destroy(): void {
    const monaco = monacoGlobal();
    if (monaco && this.modelUri) {
      const defaults = monaco.languages.json.jsonDefaults;
      const current = defaults.diagnosticsOptions ?? {};
      const uri = `${SCHEMA_URI}${encodeURIComponent(this.modelUri)}`;
      defaults.setDiagnosticsOptions({ ...current, schemas: (current.schemas ?? []).filter((s) => s.uri !== uri) });
    }
    this.editor?.destroy();
    this.editor = undefined;
  }
}
