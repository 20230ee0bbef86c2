//! What the user reads when an endpoint refuses a request, judged over error bodies in the shapes
//! real servers and gateways send (LiteLLM, vLLM, llama.cpp, OpenRouter, OpenAI, Gemini), each
//! through the whole client: the message, the fix it names, and what it quotes.

use hailer_model::{Item, ModelError, ReasoningEffort, WireApi};
use hailer_scripted_model::{Fault, Script};

use super::support::{client, failure, request, settings, start};

use WireApi::{Chat, Responses};

struct Case {
    name: &'static str,
    status: u16,
    body: &'static str,
    wire: WireApi,
    stream: bool,
    model: &'static str,
    effort: Option<ReasoningEffort>,
    max_output_tokens: Option<u32>,
    /// The message starts so.
    message: &'static str,
    /// The fix it names.
    hint: &'static str,
    /// What it quotes of the endpoint's words.
    said: &'static str,
    /// Never in the text: wrappers, wrong advice, raw framing.
    absent: &'static [&'static str],
}

const BASE: Case = Case {
    name: "",
    status: 400,
    body: "",
    wire: Chat,
    stream: true,
    model: "gateway-model",
    effort: None,
    max_output_tokens: None,
    message: "",
    hint: "",
    said: "",
    absent: &[],
};

const UNKNOWN: &str = "Unknown model '";
const KEY_REJECTED: &str = "The model endpoint http://127.0.0.1:";
const KEY_HINT: &str =
    "Check the key in SCRIPTED_API_KEY (or the one stored with `hailer login scripted`)";
const WRAPPERS: &[&str] = &[
    "Model Group",
    "model group",
    "litellm.",
    "OpenAIException",
    "{'error'",
    "data:",
    "[DONE]",
    "context_window_fallbacks",
];

const LITELLM_UNKNOWN_CHAT: &str = r#"{"error":{"message":"{'error': '/chat/completions: Invalid model name passed in model=no-such-model. Call `/v1/models` to view available models for your key.'}","type":"None","param":"None","code":"400"}}"#;
const LITELLM_UNKNOWN_RESPONSES: &str = r#"{"error":{"message":"{'error': '/responses: Invalid model name passed in model=no-such-model. Call `/v1/models` to view available models for your key.'}","type":"None","param":"None","code":"400"}}"#;
const LITELLM_BACKEND_404: &str = r#"{"error":{"message":"litellm.NotFoundError: NotFoundError: OpenAIException - {\"detail\": \"Not Found\"}. Received Model Group=gateway-model\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"404"}}"#;
const LITELLM_MODEL_GROUP_FAILED: &str = r#"{"error":{"message":"litellm.NotFoundError: NotFoundError: OpenAIException - Error code: 404 - {'detail': 'Not Found'} for model group 'gateway-model' failed","type":null,"param":null,"code":"404"}}"#;
const LITELLM_NO_DB: &str = r#"{"error":{"message":"No connected db.","type":"no_db_connection","param":null,"code":"400"}}"#;
const LITELLM_PROXY_TOKEN: &str = r#"{"error":{"message":"Authentication Error, Invalid proxy server token passed. Received API Key = sk-...wxyz, Key Hash (Token) =0f1e2d3c. Unable to find token in cache or `LiteLLM_VerificationTokenTable`","type":"auth_error","param":"None","code":"401"}}"#;
const LITELLM_BACKEND_KEY: &str = r#"{"error":{"message":"litellm.AuthenticationError: AuthenticationError: OpenAIException - Incorrect API key provided: badkey.. Received Model Group=gateway-model\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"401"}}"#;
const LITELLM_CONTEXT: &str = r#"{"error":{"message":"litellm.ContextWindowExceededError: litellm.BadRequestError: ContextWindowExceededError: OpenAIException - This model's maximum context length is 4096 tokens.\nmodel=gateway-model. context_window_fallbacks=None. fallbacks=None.\n\nSet 'context_window_fallback' - https://docs.litellm.ai/docs/routing#fallbacks. Received Model Group=gateway-model\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"400"}}"#;
const LITELLM_BACKEND_REJECTED: &str = r#"{"error":{"message":"litellm.BadRequestError: OpenAIException - Unrecognized request argument supplied: stream_options. Received Model Group=gateway-model\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"400"}}"#;
const VLLM_UNKNOWN: &str = r#"{"object":"error","message":"The model `no-such-model` does not exist.","type":"NotFoundError","param":null,"code":404}"#;
const VLLM_EXTRA_FIELD: &str = r#"{"object":"error","message":"[{'type': 'extra_forbidden', 'loc': ('body', 'stream_options'), 'msg': 'Extra inputs are not permitted', 'input': {'include_usage': True}}]","type":"BadRequestError","param":null,"code":400}"#;
const VLLM_CONTEXT: &str = r#"{"object":"error","message":"This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}"#;
const LLAMA_CPP_NO_RESPONSES: &str =
    r#"{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}"#;
const LLAMA_CPP_CONTEXT: &str = r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}"#;
const LLAMA_CPP_LOADING: &str =
    r#"{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}"#;
const LLAMA_CPP_SSE: &str = "data: {\"error\":{\"code\":400,\"message\":\"Cannot have 2 or more assistant messages at the end of the list.\",\"type\":\"invalid_request_error\"}}\n\ndata: [DONE]\n\n";
const OPENROUTER_WRAPPED_KEY: &str = r#"{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"error\":{\"message\":\"Invalid API key.\",\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}","provider_name":"OpenAI"}},"user_id":"user_2x"}"#;
const OPENROUTER_UNKNOWN: &str = r#"{"error":{"message":"openai/no-such-model is not a valid model ID","code":400},"user_id":"user_2x"}"#;
const OPENROUTER_WRAPPED_CONTEXT: &str = r#"{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"error\":{\"message\":\"This endpoint's maximum context length is 131072 tokens. However, you requested about 140000 tokens.\",\"code\":400}}","provider_name":"DeepInfra"}}}"#;
const OPENROUTER_WRAPPED_REJECTED: &str = r#"{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"object\":\"error\",\"message\":\"reasoning_effort is not supported by this model\",\"type\":\"BadRequestError\",\"code\":400}","provider_name":"Together"}}}"#;
const OPENAI_UNKNOWN: &str = r#"{"error":{"message":"The model `gpt-9` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}"#;
const OPENAI_KEY: &str = r#"{"error":{"message":"Incorrect API key provided: sk-proj-********1234. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#;
const OPENAI_MAX_TOKENS: &str = r#"{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}"#;
const OPENAI_MODEL_NAMED_NOT_UNKNOWN: &str = r#"{"error":{"message":"Unsupported value: 'reasoning.effort' does not support 'minimal' with the model 'gpt-5.5'.","type":"invalid_request_error","param":"reasoning.effort","code":"unsupported_value"}}"#;
const GEMINI_KEY: &str = r#"[{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}]"#;

fn cases() -> Vec<Case> {
    vec![
        // LiteLLM
        Case {
            name: "LiteLLM: unknown model, chat",
            body: LITELLM_UNKNOWN_CHAT,
            model: "no-such-model",
            message: UNKNOWN,
            hint: "Check the model name",
            said: "Invalid model name passed in model=no-such-model.",
            ..BASE
        },
        Case {
            name: "LiteLLM: unknown model, responses",
            body: LITELLM_UNKNOWN_RESPONSES,
            wire: Responses,
            stream: false,
            model: "no-such-model",
            message: UNKNOWN,
            hint: "Check the model name",
            said: "/responses: Invalid model name passed in model=no-such-model.",
            ..BASE
        },
        Case {
            name: "LiteLLM: the backend has no /responses",
            status: 404,
            body: LITELLM_BACKEND_404,
            wire: Responses,
            message: "The model endpoint did not accept POST /v1/responses (HTTP 404).",
            hint: "set wire_api = \"chat\"",
            said: "The endpoint said: Not Found",
            absent: &["Unknown model"],
            ..BASE
        },
        Case {
            name: "LiteLLM: model group failed",
            status: 404,
            body: LITELLM_MODEL_GROUP_FAILED,
            wire: Responses,
            stream: false,
            message: "The model endpoint did not accept POST /v1/responses (HTTP 404).",
            hint: "set wire_api = \"chat\"",
            said: "The endpoint said: Not Found",
            absent: &["Unknown model", "gateway-model"],
            ..BASE
        },
        Case {
            name: "LiteLLM: a key it does not know, no key database",
            body: LITELLM_NO_DB,
            message: KEY_REJECTED,
            hint: KEY_HINT,
            said: "No connected db. (no_db_connection)",
            absent: &["stream_options", "rejected the request"],
            ..BASE
        },
        Case {
            name: "LiteLLM: invalid proxy token",
            status: 401,
            body: LITELLM_PROXY_TOKEN,
            wire: Responses,
            message: KEY_REJECTED,
            hint: KEY_HINT,
            said: "Invalid proxy server token passed",
            ..BASE
        },
        Case {
            name: "LiteLLM: the backend refused the gateway's key",
            status: 401,
            body: LITELLM_BACKEND_KEY,
            message: KEY_REJECTED,
            hint: KEY_HINT,
            said: "The endpoint said: Incorrect API key provided: badkey.",
            absent: &["badkey.."],
            ..BASE
        },
        Case {
            name: "LiteLLM: context window",
            body: LITELLM_CONTEXT,
            message: "The conversation no longer fits the model's context window.",
            hint: "/new",
            said: "The endpoint said: This model's maximum context length is 4096 tokens.",
            ..BASE
        },
        Case {
            name: "LiteLLM: the backend refused stream_options",
            body: LITELLM_BACKEND_REJECTED,
            message: "The model endpoint rejected the request (HTTP 400).",
            hint: "It was sent with stream = true, stream_options = true;",
            said: "The endpoint said: Unrecognized request argument supplied: stream_options",
            ..BASE
        },
        // vLLM
        Case {
            name: "vLLM: unknown model",
            status: 404,
            body: VLLM_UNKNOWN,
            model: "no-such-model",
            message: UNKNOWN,
            hint: "Check the model name",
            said: "The endpoint said: The model `no-such-model` does not exist.",
            absent: &["NotFoundError"],
            ..BASE
        },
        Case {
            name: "vLLM: an extra field",
            body: VLLM_EXTRA_FIELD,
            message: "The model endpoint rejected the request (HTTP 400).",
            hint: "It was sent with stream = true, stream_options = true;",
            said: "Extra inputs are not permitted",
            ..BASE
        },
        Case {
            name: "vLLM: context window",
            body: VLLM_CONTEXT,
            wire: Responses,
            message: "The conversation no longer fits the model's context window.",
            hint: "/new",
            said: "maximum context length is 8192 tokens",
            ..BASE
        },
        // llama.cpp
        Case {
            name: "llama.cpp: no /responses",
            status: 404,
            body: LLAMA_CPP_NO_RESPONSES,
            wire: Responses,
            model: "qwen3:8b",
            message: "The model endpoint did not accept POST /v1/responses (HTTP 404).",
            hint: "set wire_api = \"chat\"",
            said: "The endpoint said: File Not Found",
            absent: &["Unknown model", "not_found_error"],
            ..BASE
        },
        Case {
            name: "llama.cpp: context size",
            body: LLAMA_CPP_CONTEXT,
            stream: false,
            message: "The conversation no longer fits the model's context window.",
            hint: "/new",
            said: "the request exceeds the available context size",
            ..BASE
        },
        Case {
            name: "llama.cpp: loading the model",
            status: 503,
            body: LLAMA_CPP_LOADING,
            message: "The model endpoint is unavailable (HTTP 503; tried 3 time(s)).",
            hint: "Try again in a moment.",
            said: "The endpoint said: Loading model",
            ..BASE
        },
        Case {
            name: "llama.cpp: an error framed as a stream",
            body: LLAMA_CPP_SSE,
            stream: false,
            message: "The model endpoint rejected the request (HTTP 400).",
            hint: "It carried only the model name, the conversation and the tools",
            said: "The endpoint said: Cannot have 2 or more assistant messages at the end of the list.",
            absent: &["stream = ", "stream_options"],
            ..BASE
        },
        // OpenRouter
        Case {
            name: "OpenRouter: the provider refused the key",
            body: OPENROUTER_WRAPPED_KEY,
            message: KEY_REJECTED,
            hint: KEY_HINT,
            said: "The endpoint said: Invalid API key. (invalid_api_key)",
            absent: &["Provider returned error"],
            ..BASE
        },
        Case {
            name: "OpenRouter: unknown model",
            body: OPENROUTER_UNKNOWN,
            model: "openai/no-such-model",
            message: UNKNOWN,
            hint: "Check the model name",
            said: "openai/no-such-model is not a valid model ID",
            ..BASE
        },
        Case {
            name: "OpenRouter: the provider's context window",
            body: OPENROUTER_WRAPPED_CONTEXT,
            wire: Responses,
            stream: false,
            message: "The conversation no longer fits the model's context window.",
            hint: "/new",
            said: "maximum context length is 131072 tokens",
            ..BASE
        },
        Case {
            name: "OpenRouter: the provider refused reasoning_effort",
            body: OPENROUTER_WRAPPED_REJECTED,
            wire: Responses,
            effort: Some(ReasoningEffort::High),
            message: "The model endpoint rejected the request (HTTP 400).",
            hint: "It was sent with stream = true, reasoning_effort = \"high\";",
            said: "The endpoint said: reasoning_effort is not supported by this model",
            absent: &["stream_options", "Provider returned error"],
            ..BASE
        },
        // OpenAI and Gemini
        Case {
            name: "OpenAI: unknown model",
            status: 404,
            body: OPENAI_UNKNOWN,
            wire: Responses,
            model: "gpt-9",
            message: UNKNOWN,
            hint: "Check the model name",
            said: "does not exist or you do not have access to it. (model_not_found)",
            ..BASE
        },
        Case {
            name: "OpenAI: wrong key",
            status: 401,
            body: OPENAI_KEY,
            wire: Responses,
            stream: false,
            message: KEY_REJECTED,
            hint: KEY_HINT,
            said: "Incorrect API key provided",
            ..BASE
        },
        Case {
            name: "OpenAI: max_tokens refused",
            body: OPENAI_MAX_TOKENS,
            stream: false,
            max_output_tokens: Some(4096),
            message: "The model endpoint rejected the request (HTTP 400).",
            hint: "It was sent with max_output_tokens = 4096, which some OpenAI-compatible servers do not accept",
            said: "Use 'max_completion_tokens' instead. (unsupported_parameter)",
            absent: &["stream = true", "stream_options"],
            ..BASE
        },
        Case {
            name: "OpenAI: a setting the named model refuses",
            body: OPENAI_MODEL_NAMED_NOT_UNKNOWN,
            wire: Responses,
            stream: false,
            model: "gpt-5.5",
            effort: Some(ReasoningEffort::Minimal),
            message: "The model endpoint rejected the request (HTTP 400).",
            hint: "It was sent with reasoning_effort = \"minimal\", which",
            said: "does not support 'minimal'",
            absent: &["Unknown model", "stream_options", "stream = "],
            ..BASE
        },
        Case {
            name: "Gemini: a bad key with HTTP 400",
            body: GEMINI_KEY,
            message: KEY_REJECTED,
            hint: KEY_HINT,
            said: "The endpoint said: API key not valid. Please pass a valid API key.",
            ..BASE
        },
    ]
}

/// The error one case's body gives, through a scripted server and the real client.
async fn error_of(case: &Case) -> ModelError {
    let fault = Fault::status(case.status).raw_body(case.body);
    let script = Script::new()
        .fault(fault.clone())
        .fault(fault.clone())
        .fault(fault);
    let server = start(script).await;
    let mut settings = settings(&server, case.wire, case.stream);
    settings.model = case.model.to_owned();
    settings.max_output_tokens = case.max_output_tokens;
    let mut request = request(vec![Item::user("hello")]);
    request.reasoning_effort = case.effort;
    failure(&client(settings), &request).await
}

#[tokio::test]
async fn every_body_gets_its_own_message_and_fix() {
    let mut wrong = Vec::new();
    for case in cases() {
        let text = error_of(&case).await.to_string();
        let mut problems = Vec::new();
        if !text.starts_with(case.message) {
            problems.push(format!("should start with {:?}", case.message));
        }
        if !text.contains(case.hint) {
            problems.push(format!("should name the fix {:?}", case.hint));
        }
        if !text.contains(case.said) {
            problems.push(format!("should quote {:?}", case.said));
        }
        for absent in case.absent.iter().chain(WRAPPERS) {
            if text.contains(absent) {
                problems.push(format!("should not contain {absent:?}"));
            }
        }
        if !problems.is_empty() {
            wrong.push(format!(
                "{}: {}\n  got: {text}",
                case.name,
                problems.join("; ")
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[tokio::test]
async fn unknown_models_name_the_model_and_the_provider() {
    let case = Case {
        body: LITELLM_UNKNOWN_CHAT,
        model: "no-such-model",
        ..BASE
    };
    let error = error_of(&case).await;
    assert!(
        matches!(error, ModelError::UnknownModel { .. }),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .starts_with("Unknown model 'no-such-model' for provider 'scripted'."),
        "{error}"
    );
}

#[tokio::test]
async fn a_key_problem_on_http_400_is_an_authentication_failure() {
    let error = error_of(&Case {
        body: LITELLM_NO_DB,
        ..BASE
    })
    .await;
    assert!(
        matches!(error, ModelError::Unauthorized { status: 400, .. }),
        "{error:?}"
    );
    assert!(!error.is_retryable());
}
