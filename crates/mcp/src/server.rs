//! The MCP server: tool listing, `computer` and `read_image` calls, turns from `_meta`, and asking the
//! person (elicitation) about destructive targets the user's intent does not back.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use handrail_core::{CallHooks, Confirm, Outcome, Progress, Status, Vision};
use handrail_platform::Cancel;
use handrail_wire::{decode_args, encode_outcome, to_value, AuditContext, AuditRecord, ImageStatus, ReadImageResult};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock as Content, ElicitRequest,
    ElicitRequestParams, ElicitationAction, ElicitationSchema, Implementation, InitializeRequestParams,
    InitializeResult, InputRequest, InputRequests, InputRequiredResult, JsonObject, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource, ResourceContents,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, Peer, ServerHandler};
use serde_json::Value;

use handrail_calls::{unix_ms, Calls, TurnMeta};

use crate::desk::{Desk, DeskGone};
use crate::images::{read_image, ImageBook, ImageRoots};
use crate::screenshots::{ImageDelivery, Shelf, Shot, SCREENSHOTS_KEPT, SCREENSHOT_URI, TRACE_REPORT_URI};
use crate::sealed::{call_digest, SealError, Sealer};
use crate::tools::{computer_tool, read_image_tool, COMPUTER, IMAGE_ARGUMENT, READ_IMAGE};
use handrail_calls::ResetError;
use handrail_wire::service::{Health, Readiness, ResetReport, ResetRequest, SERVICE_VERSION};

const INSTRUCTIONS: &str = "\
handrail gives you hands on a desktop through the `computer` tool: start with action=see, act on \
elements by element_id + observation_id, add expect=… to have the result checked, and observe again \
after [no_visible_change]. `read_image` shows image files and is separate from the screen. \
Hosts: pass the turn in request _meta as handrail/turn (id), handrail/intent (the user's own words) \
and handrail/mode (interactive or unattended); a new turn id resets observations and budgets. Without \
turn ids, a new session, a new handrail/intent or a pause of the idle gap starts a new turn, and budgets \
also refill per time window.";

/// The key of the one question an input-required result carries.
const CONFIRM_KEY: &str = "confirm";
/// The boolean the person sets to allow the action.
const ALLOW_FIELD: &str = "allow";

/// Settings of the server that are not the engine's.
#[derive(Clone)]
pub struct ServerOptions {
    pub image_roots: ImageRoots,
    /// How long to wait for the person to answer a question.
    pub elicit_timeout: Duration,
    /// Seals the request state of questions on the stateless protocol. Replicas that share its key
    /// can each take a retry; `None`: a key of this process's own.
    pub sealer: Option<Sealer>,
    /// How results carry their screenshot unless a call says otherwise (its `image` argument).
    pub images: ImageDelivery,
    /// The folder the trace is recorded in, when it is: its report is offered as a resource.
    pub trace_dir: Option<PathBuf>,
    /// Look at the screen once when starting, so readiness turns on before any client calls and the
    /// first call is as fast as the rest (see [`Desk::start`]).
    pub warm_up: bool,
    /// Whether the desktop's own processes still run (liveness); `None`: nothing to check.
    pub desktop_check: Option<DesktopCheck>,
    /// A harness's set-up endpoints (`/files/…`, `/run`) on HTTP; `None`: not offered.
    pub task_setup: Option<crate::setup::TaskSetup>,
}

/// Says what is broken about the desktop's own processes (a dead X server), if anything. Cheap and
/// callable from any thread: liveness probes call it.
pub type DesktopCheck = Arc<dyn Fn() -> Result<(), String> + Send + Sync>;

impl std::fmt::Debug for ServerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerOptions")
            .field("image_roots", &self.image_roots)
            .field("elicit_timeout", &self.elicit_timeout)
            .field("images", &self.images)
            .field("trace_dir", &self.trace_dir)
            .field("warm_up", &self.warm_up)
            .field("desktop_check", &self.desktop_check.is_some())
            .field("task_setup", &self.task_setup.is_some())
            .finish_non_exhaustive()
    }
}

/// How long a question asked on the stateless protocol may be answered.
pub const QUESTION_LIFETIME: Duration = Duration::from_secs(600);

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            image_roots: ImageRoots::new([]),
            elicit_timeout: Duration::from_secs(120),
            sealer: None,
            images: ImageDelivery::Inline,
            trace_dir: None,
            warm_up: false,
            desktop_check: None,
            task_setup: None,
        }
    }
}

struct Shared {
    desk: Desk,
    vision: Vision,
    options: ServerOptions,
    images: Mutex<ImageBook>,
    sealer: Sealer,
    /// Screenshots a host may still read as resources.
    shelf: Mutex<Shelf>,
}

/// One MCP server over one desktop. Cheap to clone: every session of every transport shares the
/// desktop, the engine thread and its turns.
#[derive(Clone)]
pub struct HandrailServer {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for HandrailServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HandrailServer").finish_non_exhaustive()
    }
}

impl HandrailServer {
    /// `vision` must be what the engine was configured with (it also gates `read_image`).
    pub fn new(desk: Desk, vision: Vision, options: ServerOptions) -> Result<Self, SealError> {
        let sealer = match options.sealer.clone() {
            Some(s) => s,
            None => Sealer::random(QUESTION_LIFETIME)?,
        };
        let shared = Shared {
            desk,
            vision,
            options,
            images: Mutex::new(ImageBook::default()),
            sealer,
            shelf: Mutex::new(Shelf::default()),
        };
        Ok(Self { shared: Arc::new(shared) })
    }

    /// Starts the engine thread for the call layer and a server over it.
    pub fn start(calls: Calls, options: ServerOptions) -> std::io::Result<Self> {
        let vision = calls.engine().config().vision.clone();
        let desk = Desk::start(calls, options.warm_up)?;
        Self::new(desk, vision, options).map_err(std::io::Error::other)
    }

    /// Liveness: the engine thread runs and the desktop's own processes are alive.
    pub fn health(&self) -> Health {
        let problem = if !self.shared.desk.alive() {
            Some("the engine thread has stopped".to_string())
        } else {
            self.shared.options.desktop_check.as_ref().and_then(|check| check().err())
        };
        Health { version: SERVICE_VERSION, alive: problem.is_none(), problem }
    }

    /// The set-up endpoints' desktop side, when they are offered.
    pub fn task_setup(&self) -> Option<crate::setup::TaskSetup> {
        self.shared.options.task_setup.clone()
    }

    /// Readiness (see [`Desk::readiness`]); never ready while not alive.
    pub fn readiness(&self) -> Readiness {
        let mut ready = self.shared.desk.readiness();
        if let (true, Some(problem)) = (ready.ready, self.health().problem) {
            ready.ready = false;
            ready.why = Some(problem);
        }
        ready
    }

    /// Returns the desktop to a clean state between tasks (see [`Desk::reset`]). The screenshots the
    /// last task could still read as resources are forgotten with it.
    pub async fn reset(&self, request: ResetRequest) -> Result<Result<ResetReport, ResetError>, DeskGone> {
        let report = self.shared.desk.reset(request).await?;
        if report.is_ok() {
            if let Ok(mut shelf) = self.shared.shelf.lock() {
                *shelf = Shelf::default();
            }
        }
        Ok(report)
    }

    /// The trace folder whose report the `handrail://trace/report.html` resource shows: the server's
    /// whole trace, else the current task's.
    fn trace_dir(&self) -> Option<PathBuf> {
        self.shared.options.trace_dir.clone().or_else(|| self.shared.desk.task_trace_dir())
    }

    /// The folder the current task trace is recorded in, when task traces are on.
    pub fn task_trace_dir(&self) -> Option<PathBuf> {
        self.shared.desk.task_trace_dir()
    }

    /// Stops the engine for good: new calls are refused, the call in progress is cancelled and
    /// finished (nothing stays held down), and the desktop is let go. Blocks for at most `within`;
    /// true when the engine stopped in time. Transports call it when they stop serving.
    pub fn shutdown(&self, within: Duration) -> bool {
        self.shared.desk.stop(within)
    }

    async fn computer(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let turn = turn_meta(&request, &context)?;
        let mut arguments = request.arguments.clone().unwrap_or_default();
        let digest = call_digest(&arguments);
        // How the screenshot travels is this edge's business, not the engine's.
        let delivery = match arguments.remove(IMAGE_ARGUMENT) {
            None | Some(Value::Null) => Ok(self.shared.options.images),
            Some(Value::String(s)) => ImageDelivery::parse(&s).ok_or(s),
            Some(other) => Err(other.to_string()),
        };
        let args = match &delivery {
            Ok(_) => decode_args(&Value::Object(arguments)).map_err(|e| e.to_string()),
            Err(got) => Err(format!(
                "`{IMAGE_ARGUMENT}` must be \"inline\", \"resource\" or \"none\" (got {})",
                got.chars().take(40).collect::<String>()
            )),
        };
        let delivery = delivery.unwrap_or(self.shared.options.images);

        let stateless = context.protocol_version().is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
        let can_elicit = context
            .client_capabilities()
            .and_then(|c| c.elicitation)
            .is_some_and(|e| e.form.is_some() || e.url.is_none());
        let asked = Arc::new(Mutex::new(None));
        let confirm: Option<Box<dyn Confirm>> = match (can_elicit, stateless) {
            (false, _) => None,
            (true, false) => Some(Box::new(AskPeer {
                peer: context.peer.clone(),
                runtime: tokio::runtime::Handle::current(),
                timeout: self.shared.options.elicit_timeout,
            })),
            (true, true) => {
                // The turn this retry runs in: the one the host names, else the current one.
                let turn_id = turn.id.clone().unwrap_or_else(|| self.shared.desk.current_turn().id);
                let answer = self.answer_from_retry(&request, &turn_id, &digest);
                Some(Box::new(AskLater { answer, asked: asked.clone() }))
            }
        };

        // A client that asked for progress hears each step; a cancelled request stops the engine's
        // waits at once (rmcp then drops the reply, as the protocol wants).
        let (progress, progress_sent) = match context.meta.get_progress_token() {
            Some(token) => {
                let (reporter, sent) = ProgressToClient::start(context.peer.clone(), token);
                (Some(Box::new(reporter) as Box<dyn Progress>), Some(sent))
            }
            None => (None, None),
        };
        let cancel = Cancel::new();
        let hooks = CallHooks { confirm, progress, cancel: Some(cancel.clone()) };
        let running = self.shared.desk.call(turn, args, hooks);
        tokio::pin!(running);
        let answered = tokio::select! {
            answered = &mut running => answered,
            () = context.ct.cancelled() => {
                cancel.cancel();
                // The engine thread is free again once this returns; the reply goes nowhere.
                running.await
            }
        };
        if let Some(sent) = progress_sent {
            // Every step goes out before the result (the engine dropped the reporter when the call
            // ended, which ends the sending); bounded, should a reporter outlive its call.
            if tokio::time::timeout(PROGRESS_FLUSH, sent).await.is_err() {
                log::debug!("progress notifications were still being sent when the result went");
            }
        }
        let ran = match answered {
            Ok(Ok(ran)) => ran,
            Ok(Err(meta)) => return Err(ErrorData::invalid_params(meta.to_string(), None)),
            Err(gone) => return Err(ErrorData::internal_error(gone.to_string(), None)),
        };

        // Stateless protocol: the question goes back as an input-required result and the client
        // retries the same call with the person's answer. Nothing was done in between.
        let pending_question = asked.lock().ok().and_then(|mut q| q.take());
        if let Some(question) = pending_question {
            if ran.asked {
                let handle = self.shared.sealer.seal(&question, &ran.turn.id, &digest, unix_ms());
                let mut requests = InputRequests::new();
                requests.insert(
                    CONFIRM_KEY.to_string(),
                    InputRequest::Elicitation(ElicitRequest::new(confirm_params(question))),
                );
                return Ok(CallToolResponse::InputRequired(InputRequiredResult::new(Some(requests), Some(handle))));
            }
        }
        Ok(CallToolResponse::Complete(self.deliver(&ran.outcome, delivery)))
    }

    /// The person's answer carried by a retried call, bound to the question it answers: the sealed
    /// state must be this call's, in this turn, unexpired and sealed with our key.
    fn answer_from_retry(&self, request: &CallToolRequestParams, turn: &str, call: &str) -> Option<(String, bool)> {
        let state = request.request_state.as_ref()?;
        let question = match self.shared.sealer.open(state, turn, call, unix_ms()) {
            Ok(q) => q,
            Err(e) => {
                log::warn!("a retried call's request state was not accepted: {e}");
                return None;
            }
        };
        let response = request.input_responses.as_ref()?.get(CONFIRM_KEY)?;
        Some((question.text, elicit_allows(response)))
    }

    async fn read_image(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // The same turn rules apply, so a bad `_meta` is reported the same way.
        let _ = turn_meta(&request, &context)?;
        let turn = self.shared.desk.current_turn();
        let args = request.arguments.unwrap_or_default();
        let result = if self.shared.vision != Vision::Capable {
            Err(("[unsupported] read_image requires a vision-capable model".to_string(), ImageStatus::Unsupported))
        } else {
            match args.iter().find(|(k, _)| k.as_str() != "path") {
                Some((k, _)) => Err((
                    format!(
                        "[error] unknown parameter `{}`; read_image accepts: path",
                        k.chars().take(40).collect::<String>()
                    ),
                    ImageStatus::Error,
                )),
                None => match args.get("path") {
                    Some(Value::String(path)) => match read_image(&self.shared.options.image_roots, path) {
                        Ok(file) => Ok(file),
                        Err(e) => Err((format!("[error] {e}"), ImageStatus::Error)),
                    },
                    Some(_) => Err(("[error] `path` must be a string".to_string(), ImageStatus::Error)),
                    None => Err(("[error] `path` is required".to_string(), ImageStatus::Error)),
                },
            }
        };
        let record = |verdict: &str, path: Option<String>| {
            let ctx = AuditContext { unix_ms: unix_ms(), turn: &turn.id, mode: turn.mode.as_str(), tool: READ_IMAGE };
            AuditRecord::of_image(ctx, path, verdict)
        };
        match result {
            Ok(file) => {
                let id = self.shared.images.lock().map(|mut b| b.next_id()).unwrap_or_else(|_| "img_0".into());
                let path = file.path.display().to_string();
                self.shared.desk.audit(&record("[ok]", Some(path.clone())));
                let text = format!(
                    "[ok] {id} {} {}x{} {} bytes — an image file, not the screen",
                    handrail_core::render::quote_clipped(&path, 200),
                    file.width,
                    file.height,
                    file.bytes.len()
                );
                let data = base64::engine::general_purpose::STANDARD.encode(&file.bytes);
                let mut result = CallToolResult::success(vec![Content::text(text), Content::image(data, file.mime)]);
                let typed = ReadImageResult::read(id, path, file.mime, file.width, file.height, file.bytes.len());
                result.structured_content = Some(to_value(&typed));
                Ok(CallToolResponse::Complete(result))
            }
            Err((text, status)) => {
                let path = args.get("path").and_then(Value::as_str).map(|p| p.chars().take(300).collect());
                let tag = match status {
                    ImageStatus::Unsupported => "[unsupported]",
                    _ => "[error]",
                };
                self.shared.desk.audit(&record(tag, path));
                let mut result = CallToolResult::error(vec![Content::text(text.clone())]);
                result.structured_content = Some(to_value(&ReadImageResult::failed(status, text)));
                Ok(CallToolResponse::Complete(result))
            }
        }
    }
}

/// The turn named by the request's `_meta` (rmcp hands it over in the context; some paths leave it in
/// the params).
fn turn_meta(request: &CallToolRequestParams, context: &RequestContext<RoleServer>) -> Result<TurnMeta, ErrorData> {
    let from_context: &JsonObject = &context.meta.0 .0;
    let meta = if from_context.keys().any(|k| k.starts_with("handrail/")) {
        from_context
    } else {
        match request.meta.as_ref() {
            Some(m) => &m.0 .0,
            None => from_context,
        }
    };
    TurnMeta::from_meta(meta).map_err(|e| ErrorData::invalid_params(e.to_string(), None))
}

fn confirm_schema() -> ElicitationSchema {
    ElicitationSchema::builder()
        .required_bool_property(ALLOW_FIELD, |b| {
            b.title("Allow this action").description("Yes lets the agent go ahead; no refuses it.")
        })
        .build_unchecked()
}

fn confirm_params(question: String) -> ElicitRequestParams {
    ElicitRequestParams::FormElicitationParams { meta: None, message: question, requested_schema: confirm_schema() }
}

/// Whether an elicitation answer (as JSON) allows the action: accepted with `allow: true`.
fn elicit_allows(response: &Value) -> bool {
    response.get("action").and_then(Value::as_str) == Some("accept")
        && response.get("content").and_then(|c| c.get(ALLOW_FIELD)).and_then(Value::as_bool) == Some(true)
}

/// Asks the person through the client, on sessions where the server may send requests.
struct AskPeer {
    peer: Peer<RoleServer>,
    runtime: tokio::runtime::Handle,
    timeout: Duration,
}

impl Confirm for AskPeer {
    fn confirm(&mut self, question: &str) -> Option<bool> {
        // Runs on the engine thread, outside the runtime, so blocking on the answer is fine.
        let asked = self.peer.create_elicitation_with_timeout(confirm_params(question.to_string()), Some(self.timeout));
        match self.runtime.block_on(asked) {
            Ok(result) => Some(
                matches!(result.action, ElicitationAction::Accept)
                    && result.content.as_ref().and_then(|c| c.get(ALLOW_FIELD)).and_then(Value::as_bool) == Some(true),
            ),
            Err(e) => {
                log::warn!("asking the person failed ({e}); refusing");
                None
            }
        }
    }
}

/// How long a call's result waits for its last progress notifications to go out.
const PROGRESS_FLUSH: Duration = Duration::from_secs(2);

/// Sends each step of a call to the client as an MCP progress notification, in the order the
/// steps came: one task sends them one after another (a task per notification would let a loaded
/// runtime send "settling" before "sending the input").
struct ProgressToClient {
    token: ProgressToken,
    steps: u32,
    queue: tokio::sync::mpsc::UnboundedSender<ProgressNotificationParam>,
}

impl ProgressToClient {
    /// The reporter, and the sending task, which ends once the reporter is dropped and everything
    /// reported was sent.
    fn start(peer: Peer<RoleServer>, token: ProgressToken) -> (ProgressToClient, tokio::task::JoinHandle<()>) {
        let (queue, mut steps) = tokio::sync::mpsc::unbounded_channel::<ProgressNotificationParam>();
        let sending = tokio::spawn(async move {
            while let Some(param) = steps.recv().await {
                if let Err(e) = peer.notify_progress(param).await {
                    log::debug!("a progress notification was not sent: {e}");
                }
            }
        });
        (ProgressToClient { token, steps: 0, queue }, sending)
    }
}

impl Progress for ProgressToClient {
    fn report(&mut self, step: &str) {
        self.steps += 1;
        let param = ProgressNotificationParam::new(self.token.clone(), f64::from(self.steps)).with_message(step);
        // Runs on the engine thread: queued without waiting; the sending task keeps the order.
        if self.queue.send(param).is_err() {
            log::debug!("a progress notification was not sent: the call's sender is gone");
        }
    }
}

/// On the stateless protocol: answers from a retried call, or notes the question to send back.
struct AskLater {
    answer: Option<(String, bool)>,
    asked: Arc<Mutex<Option<String>>>,
}

impl Confirm for AskLater {
    fn deferred(&self) -> bool {
        self.asked.lock().is_ok_and(|q| q.is_some())
    }

    fn confirm(&mut self, question: &str) -> Option<bool> {
        match &self.answer {
            Some((q, allow)) if q == question => Some(*allow),
            _ => {
                if let Ok(mut asked) = self.asked.lock() {
                    *asked = Some(question.to_string());
                }
                None
            }
        }
    }
}

/// Whether a result should be flagged as an error to the host: anything that did not run as asked.
fn is_error(status: Status) -> bool {
    !matches!(status, Status::Ok | Status::NoVisibleChange)
}

impl HandrailServer {
    /// A `computer` result: the text block, the screenshot (when the call published one) as `delivery`
    /// says, and the same facts as structured content.
    fn deliver(&self, outcome: &Outcome, delivery: ImageDelivery) -> CallToolResult {
        let mut content = vec![Content::text(outcome.text())];
        if let Some((obs, image)) = outcome.observation.as_ref().and_then(|o| o.image.as_ref().map(|i| (o, i))) {
            let shot = Shot { observation: obs.id.to_string(), mime: image.mime, bytes: Arc::new(image.bytes.clone()) };
            match delivery {
                ImageDelivery::Inline => content.push(Content::image(
                    base64::engine::general_purpose::STANDARD.encode(shot.bytes.as_slice()),
                    shot.mime,
                )),
                ImageDelivery::Resource => {
                    let link = Resource::new(shot.uri(), format!("screenshot of {}", shot.observation))
                        .with_mime_type(shot.mime)
                        .with_size(shot.bytes.len() as u64);
                    content.push(Content::resource_link(link));
                }
                ImageDelivery::None => {}
            }
            if delivery != ImageDelivery::None {
                if let Ok(mut shelf) = self.shared.shelf.lock() {
                    shelf.keep(shot);
                }
            }
        }
        let mut result =
            if is_error(outcome.status) { CallToolResult::error(content) } else { CallToolResult::success(content) };
        result.structured_content = Some(encode_outcome(outcome));
        result
    }
}

impl ServerHandler for HandrailServer {
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        // A new session is a new conversation: for clients that name no turns, a new turn.
        self.shared.desk.session_started();
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
            .with_server_info(Implementation::new("handrail", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![computer_tool(), read_image_tool()]))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let mut resources: Vec<Resource> = match self.shared.shelf.lock() {
            Ok(shelf) => shelf
                .newest_first()
                .map(|s| {
                    Resource::new(s.uri(), format!("screenshot of {}", s.observation))
                        .with_mime_type(s.mime)
                        .with_size(s.bytes.len() as u64)
                })
                .collect(),
            Err(_) => Vec::new(),
        };
        if self.trace_dir().is_some() {
            resources.push(
                Resource::new(TRACE_REPORT_URI, "trace report")
                    .with_description("Every call of this server so far: screenshots, guards, timings (HTML).")
                    .with_mime_type("text/html"),
            );
        }
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri.as_str();
        if uri == TRACE_REPORT_URI {
            let Some(dir) = self.trace_dir() else {
                return Err(ErrorData::resource_not_found("this server records no trace", None));
            };
            let path = handrail_trace::report::write_report(&dir)
                .map_err(|e| ErrorData::internal_error(format!("the trace report could not be written: {e}"), None))?;
            let html = std::fs::read_to_string(&path)
                .map_err(|e| ErrorData::internal_error(format!("the trace report could not be read: {e}"), None))?;
            let contents = ResourceContents::text(html, uri).with_mime_type("text/html");
            return Ok(ReadResourceResult::new(vec![contents]).into());
        }
        let shot = self.shared.shelf.lock().ok().and_then(|shelf| shelf.get(uri).cloned());
        match shot {
            Some(shot) => {
                let blob = base64::engine::general_purpose::STANDARD.encode(shot.bytes.as_slice());
                let contents = ResourceContents::blob(blob, uri).with_mime_type(shot.mime);
                Ok(ReadResourceResult::new(vec![contents]).into())
            }
            None => {
                let shown: String = uri.chars().filter(|c| !c.is_control()).take(120).collect();
                Err(ErrorData::resource_not_found(
                    format!(
                        "no resource {shown}; screenshots are {SCREENSHOT_URI}obs_N for the newest {SCREENSHOTS_KEPT} \
                         observations"
                    ),
                    None,
                ))
            }
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match request.name.as_ref() {
            COMPUTER => self.computer(request, context).await,
            READ_IMAGE => self.read_image(request, context).await,
            other => {
                let shown: String = other.chars().filter(|c| !c.is_control()).take(60).collect();
                Err(ErrorData::invalid_params(
                    format!("unknown tool `{shown}`; this server offers `{COMPUTER}` and `{READ_IMAGE}`"),
                    None,
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_an_accepted_yes_allows() {
        assert!(elicit_allows(&json!({"action": "accept", "content": {"allow": true}})));
        assert!(!elicit_allows(&json!({"action": "accept", "content": {"allow": false}})));
        assert!(!elicit_allows(&json!({"action": "accept", "content": {"allow": "true"}})));
        assert!(!elicit_allows(&json!({"action": "decline"})));
        assert!(!elicit_allows(&json!({"action": "cancel", "content": {"allow": true}})));
        assert!(!elicit_allows(&json!("yes")));
    }

    #[test]
    fn a_retry_answers_only_the_question_it_was_asked() {
        let asked = Arc::new(Mutex::new(None));
        let mut later = AskLater { answer: Some(("Delete it?".into(), true)), asked: asked.clone() };
        assert_eq!(later.confirm("Delete it?"), Some(true));
        assert_eq!(later.confirm("Remove the other thing?"), None);
        assert_eq!(asked.lock().ok().and_then(|q| q.clone()).as_deref(), Some("Remove the other thing?"));
    }
}
