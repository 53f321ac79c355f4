//! The Qdrant server adapter against a loopback gRPC server built from
//! qdrant-client's own generated service traits. The fake keeps real state
//! (collections, payload indexes, points), answers queries with exact cosine
//! similarity, payload filters and reciprocal rank fusion over prefetches, and
//! records every request so the tests can assert what the adapter sent.

use qdrant_client::qdrant as q;
use qdrant_client::qdrant::collections_server::{Collections, CollectionsServer};
use qdrant_client::qdrant::points_server::{Points, PointsServer};
use qdrant_client::qdrant::qdrant_server::{Qdrant as QdrantService, QdrantServer};
use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use tonic::{Request, Response, Status};

use evident::passage::PassageNo;
use evident::vector::{SearchTuning, ServerStore, VectorFilter, VectorPoint, VectorQuery, VectorStore, point_id};

/// A sparse vector: (dimension, weight) pairs.
type Sparse = Vec<(u32, f32)>;

/// A stored point: its dense vector, its named sparse vector if any, and its payload.
type StoredPoint = (Vec<f32>, Option<Sparse>, HashMap<String, q::Value>);

/// A collection: dimension, distance, and its sparse vectors' names → modifier.
type Collection = (u64, i32, BTreeMap<String, Option<i32>>);

#[derive(Default)]
struct State {
    collections: BTreeMap<String, Collection>,
    /// (collection, field, field type)
    indexes: Vec<(String, String, i32)>,
    /// (collection, point id) → point
    points: BTreeMap<(String, u64), StoredPoint>,
    queries: Vec<q::QueryPoints>,
}

#[derive(Clone, Default)]
struct Fake(Arc<Mutex<State>>);

type Rpc<T> = Result<Response<T>, Status>;

/// Implements a generated service trait: the listed methods delegate to
/// synchronous methods of `Fake`; every other method answers `unimplemented`.
macro_rules! service {
    ($trait:ident for $ty:ty;
     implemented { $($name:ident($req:ident) -> $resp:ident => $handler:ident;)* }
     unimplemented { $($un:ident($ureq:ident) -> $uresp:ident;)* }) => {
        #[tonic::async_trait]
        impl $trait for $ty {
            $(async fn $name(&self, request: Request<q::$req>) -> Rpc<q::$resp> {
                self.$handler(request.into_inner()).map(Response::new)
            })*
            $(async fn $un(&self, _request: Request<q::$ureq>) -> Rpc<q::$uresp> {
                Err(Status::unimplemented(stringify!($un)))
            })*
        }
    };
}

service!(QdrantService for Fake;
    implemented { health_check(HealthCheckRequest) -> HealthCheckReply => health; }
    unimplemented {});

service!(Collections for Fake;
implemented {
    create(CreateCollection) -> CollectionOperationResponse => create_collection;
    delete(DeleteCollection) -> CollectionOperationResponse => delete_collection;
}
unimplemented {
    get(GetCollectionInfoRequest) -> GetCollectionInfoResponse;
    list(ListCollectionsRequest) -> ListCollectionsResponse;
    update(UpdateCollection) -> CollectionOperationResponse;
    update_aliases(ChangeAliases) -> CollectionOperationResponse;
    list_collection_aliases(ListCollectionAliasesRequest) -> ListAliasesResponse;
    list_aliases(ListAliasesRequest) -> ListAliasesResponse;
    collection_cluster_info(CollectionClusterInfoRequest) -> CollectionClusterInfoResponse;
    collection_exists(CollectionExistsRequest) -> CollectionExistsResponse;
    update_collection_cluster_setup(UpdateCollectionClusterSetupRequest) -> UpdateCollectionClusterSetupResponse;
    create_shard_key(CreateShardKeyRequest) -> CreateShardKeyResponse;
    delete_shard_key(DeleteShardKeyRequest) -> DeleteShardKeyResponse;
    list_shard_keys(ListShardKeysRequest) -> ListShardKeysResponse;
});

service!(Points for Fake;
implemented {
    upsert(UpsertPoints) -> PointsOperationResponse => upsert_points;
    get(GetPoints) -> GetResponse => get_points;
    create_field_index(CreateFieldIndexCollection) -> PointsOperationResponse => create_index;
    count(CountPoints) -> CountResponse => count_points;
    query(QueryPoints) -> QueryResponse => query_points;
}
unimplemented {
    delete(DeletePoints) -> PointsOperationResponse;
    update_vectors(UpdatePointVectors) -> PointsOperationResponse;
    delete_vectors(DeletePointVectors) -> PointsOperationResponse;
    set_payload(SetPayloadPoints) -> PointsOperationResponse;
    overwrite_payload(SetPayloadPoints) -> PointsOperationResponse;
    delete_payload(DeletePayloadPoints) -> PointsOperationResponse;
    clear_payload(ClearPayloadPoints) -> PointsOperationResponse;
    delete_field_index(DeleteFieldIndexCollection) -> PointsOperationResponse;
    create_vector_name(CreateVectorNameRequest) -> PointsOperationResponse;
    delete_vector_name(DeleteVectorNameRequest) -> PointsOperationResponse;
    search(SearchPoints) -> SearchResponse;
    search_batch(SearchBatchPoints) -> SearchBatchResponse;
    search_groups(SearchPointGroups) -> SearchGroupsResponse;
    scroll(ScrollPoints) -> ScrollResponse;
    recommend(RecommendPoints) -> RecommendResponse;
    recommend_batch(RecommendBatchPoints) -> RecommendBatchResponse;
    recommend_groups(RecommendPointGroups) -> RecommendGroupsResponse;
    discover(DiscoverPoints) -> DiscoverResponse;
    discover_batch(DiscoverBatchPoints) -> DiscoverBatchResponse;
    update_batch(UpdateBatchPoints) -> UpdateBatchResponse;
    query_batch(QueryBatchPoints) -> QueryBatchResponse;
    query_groups(QueryPointGroups) -> QueryGroupsResponse;
    facet(FacetCounts) -> FacetResponse;
    search_matrix_pairs(SearchMatrixPoints) -> SearchMatrixPairsResponse;
    search_matrix_offsets(SearchMatrixPoints) -> SearchMatrixOffsetsResponse;
});

fn ok_update() -> q::PointsOperationResponse {
    q::PointsOperationResponse {
        result: Some(q::UpdateResult { operation_id: Some(0), status: q::UpdateStatus::Completed as i32 }),
        ..Default::default()
    }
}

fn num_id(id: &Option<q::PointId>) -> u64 {
    match id.as_ref().and_then(|i| i.point_id_options.as_ref()) {
        Some(q::point_id::PointIdOptions::Num(n)) => *n,
        other => panic!("expected a numeric point id, got {other:?}"),
    }
}

/// A point's vectors: one unnamed dense vector, or named "" (dense) and
/// "lexical" (sparse), and nothing else; `Err` says what was sent instead.
fn vectors_of(vectors: &Option<q::Vectors>) -> Result<(Vec<f32>, Option<Sparse>), String> {
    match vectors.as_ref().and_then(|v| v.vectors_options.as_ref()) {
        Some(q::vectors::VectorsOptions::Vector(v)) => Ok((dense_of_vector(v), None)),
        Some(q::vectors::VectorsOptions::Vectors(named)) => {
            let mut names: Vec<&String> = named.vectors.keys().collect();
            names.sort();
            if names != ["", "lexical"] {
                return Err(format!("expected vectors named \"\" and \"lexical\", got {names:?}"));
            }
            let sparse = sparse_of_vector(&named.vectors["lexical"]).ok_or("\"lexical\" is not sparse")?;
            Ok((dense_of_vector(&named.vectors[""]), Some(sparse)))
        }
        other => Err(format!("expected vectors, got {other:?}")),
    }
}

#[allow(deprecated)]
fn sparse_of_vector(v: &q::Vector) -> Option<Sparse> {
    match (&v.vector, &v.indices) {
        (Some(q::vector::Vector::Sparse(s)), _) => {
            Some(s.indices.iter().copied().zip(s.values.iter().copied()).collect())
        }
        (None, Some(indices)) => Some(indices.data.iter().copied().zip(v.data.iter().copied()).collect()),
        _ => None,
    }
}

#[allow(deprecated)]
fn dense_of_vector(v: &q::Vector) -> Vec<f32> {
    match &v.vector {
        Some(q::vector::Vector::Dense(d)) => d.data.clone(),
        _ => v.data.clone(),
    }
}

fn query_sparse(query: &Option<q::Query>) -> Option<Sparse> {
    match query.as_ref()?.variant.as_ref()? {
        q::query::Variant::Nearest(input) => match input.variant.as_ref()? {
            q::vector_input::Variant::Sparse(s) => {
                Some(s.indices.iter().copied().zip(s.values.iter().copied()).collect())
            }
            _ => None,
        },
        _ => None,
    }
}

fn query_vector(query: &Option<q::Query>) -> Option<Vec<f32>> {
    match query.as_ref()?.variant.as_ref()? {
        q::query::Variant::Nearest(input) => match input.variant.as_ref()? {
            q::vector_input::Variant::Dense(d) => Some(d.data.clone()),
            _ => None,
        },
        _ => None,
    }
}

fn string_values(value: &q::Value) -> Vec<String> {
    match &value.kind {
        Some(q::value::Kind::StringValue(s)) => vec![s.clone()],
        Some(q::value::Kind::ListValue(list)) => list.values.iter().flat_map(string_values).collect(),
        _ => Vec::new(),
    }
}

fn matches(filter: &Option<q::Filter>, payload: &HashMap<String, q::Value>) -> bool {
    let Some(filter) = filter else { return true };
    filter.must.iter().all(|condition| match &condition.condition_one_of {
        Some(q::condition::ConditionOneOf::Field(field)) => {
            let have = payload.get(&field.key).map(string_values).unwrap_or_default();
            match field.r#match.as_ref().and_then(|m| m.match_value.as_ref()) {
                Some(q::r#match::MatchValue::Keyword(k)) => have.contains(k),
                Some(q::r#match::MatchValue::Keywords(ks)) => ks.strings.iter().any(|k| have.contains(k)),
                other => panic!("unexpected match {other:?}"),
            }
        }
        other => panic!("unexpected condition {other:?}"),
    })
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (norm(a) * norm(b))
}

impl Fake {
    fn health(&self, _: q::HealthCheckRequest) -> Result<q::HealthCheckReply, Status> {
        Ok(q::HealthCheckReply { title: "qdrant - fake".into(), version: "1.20.0".into(), commit: None })
    }

    fn create_collection(&self, r: q::CreateCollection) -> Result<q::CollectionOperationResponse, Status> {
        let params = match r.vectors_config.and_then(|c| c.config) {
            Some(q::vectors_config::Config::Params(p)) => p,
            other => return Err(Status::invalid_argument(format!("expected single vector params, got {other:?}"))),
        };
        let sparse = r.sparse_vectors_config.map(|c| c.map.into_iter().map(|(name, p)| (name, p.modifier)).collect());
        let collection = (params.size, params.distance, sparse.unwrap_or_default());
        self.0.lock().unwrap().collections.insert(r.collection_name, collection);
        Ok(q::CollectionOperationResponse { result: true, ..Default::default() })
    }

    fn delete_collection(&self, r: q::DeleteCollection) -> Result<q::CollectionOperationResponse, Status> {
        let mut state = self.0.lock().unwrap();
        let existed = state.collections.remove(&r.collection_name).is_some();
        state.points.retain(|(c, _), _| c != &r.collection_name);
        Ok(q::CollectionOperationResponse { result: existed, ..Default::default() })
    }

    fn create_index(&self, r: q::CreateFieldIndexCollection) -> Result<q::PointsOperationResponse, Status> {
        self.0.lock().unwrap().indexes.push((r.collection_name, r.field_name, r.field_type.unwrap_or(-1)));
        Ok(ok_update())
    }

    fn upsert_points(&self, r: q::UpsertPoints) -> Result<q::PointsOperationResponse, Status> {
        let mut state = self.0.lock().unwrap();
        let (dimension, _, sparse_names) =
            state.collections.get(&r.collection_name).ok_or_else(|| Status::not_found("collection"))?.clone();
        for p in r.points {
            let (vector, sparse) = vectors_of(&p.vectors).map_err(Status::invalid_argument)?;
            if vector.len() as u64 != dimension {
                return Err(Status::invalid_argument("wrong dimension"));
            }
            if sparse.is_some() && !sparse_names.contains_key("lexical") {
                return Err(Status::invalid_argument("the collection has no sparse vector \"lexical\""));
            }
            state.points.insert((r.collection_name.clone(), num_id(&p.id)), (vector, sparse, p.payload));
        }
        Ok(ok_update())
    }

    fn get_points(&self, r: q::GetPoints) -> Result<q::GetResponse, Status> {
        let state = self.0.lock().unwrap();
        let result = r
            .ids
            .iter()
            .filter_map(|id| {
                let n = num_id(&Some(id.clone()));
                let (vector, sparse, payload) = state.points.get(&(r.collection_name.clone(), n))?;
                #[allow(deprecated)]
                let output = |vector| q::VectorOutput { vector: Some(vector), ..Default::default() };
                let dense = output(q::vector_output::Vector::Dense(q::DenseVector { data: vector.clone() }));
                // As a server answers: a point with named vectors comes back with all of them by name.
                let vectors = match sparse {
                    None => q::vectors_output::VectorsOptions::Vector(dense),
                    Some(sparse) => {
                        let (indices, values) = sparse.iter().copied().unzip();
                        let sparse = output(q::vector_output::Vector::Sparse(q::SparseVector { indices, values }));
                        q::vectors_output::VectorsOptions::Vectors(q::NamedVectorsOutput {
                            vectors: HashMap::from([(String::new(), dense), ("lexical".to_owned(), sparse)]),
                        })
                    }
                };
                Some(q::RetrievedPoint {
                    id: Some(id.clone()),
                    payload: payload.clone(),
                    vectors: Some(q::VectorsOutput { vectors_options: Some(vectors) }),
                    ..Default::default()
                })
            })
            .collect();
        Ok(q::GetResponse { result, ..Default::default() })
    }

    fn count_points(&self, r: q::CountPoints) -> Result<q::CountResponse, Status> {
        let state = self.0.lock().unwrap();
        let count = state.points.keys().filter(|(c, _)| c == &r.collection_name).count() as u64;
        Ok(q::CountResponse { result: Some(q::CountResult { count }), ..Default::default() })
    }

    /// Exact nearest neighbours by cosine among points passing the filter.
    fn nearest(&self, collection: &str, vector: &[f32], filter: &Option<q::Filter>, limit: usize) -> Vec<(u64, f32)> {
        let state = self.0.lock().unwrap();
        let mut scored: Vec<(u64, f32)> = state
            .points
            .iter()
            .filter(|((c, _), (_, _, payload))| c == collection && matches(filter, payload))
            .map(|((_, id), (v, _, _))| (*id, cosine(vector, v)))
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(limit);
        scored
    }

    /// Points sharing a dimension with `query`, scored as Qdrant scores a sparse
    /// vector with the IDF modifier: Σ query × stored × ln(1 + (N − n + 0.5) / (n + 0.5)),
    /// N the points with a sparse vector, n those holding the dimension.
    fn sparse_nearest(
        &self,
        collection: &str,
        query: &Sparse,
        filter: &Option<q::Filter>,
        limit: usize,
    ) -> Vec<(u64, f32)> {
        let state = self.0.lock().unwrap();
        let points: Vec<(u64, &Sparse, &HashMap<String, q::Value>)> = state
            .points
            .iter()
            .filter(|((c, _), _)| c == collection)
            .filter_map(|((_, id), (_, sparse, payload))| Some((*id, sparse.as_ref()?, payload)))
            .collect();
        let n_points = points.len() as f32;
        let idf = |dim: u32| {
            let n = points.iter().filter(|(_, s, _)| s.iter().any(|(d, _)| *d == dim)).count() as f32;
            (1.0 + (n_points - n + 0.5) / (n + 0.5)).ln()
        };
        let weights: Vec<(u32, f32)> = query.iter().map(|(dim, value)| (*dim, value * idf(*dim))).collect();
        let mut scored: Vec<(u64, f32)> = points
            .iter()
            .filter(|(_, _, payload)| matches(filter, payload))
            .filter_map(|(id, stored, _)| {
                let shared: Vec<f32> = weights
                    .iter()
                    .filter_map(|(dim, w)| stored.iter().find(|(d, _)| d == dim).map(|(_, v)| w * v))
                    .collect();
                (!shared.is_empty()).then(|| (*id, shared.iter().sum()))
            })
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(limit);
        scored
    }

    fn query_points(&self, r: q::QueryPoints) -> Result<q::QueryResponse, Status> {
        self.0.lock().unwrap().queries.push(r.clone());
        let limit = r.limit.unwrap_or(10) as usize;
        let scored: Vec<(u64, f32)> = if let Some(sparse) = query_sparse(&r.query) {
            let modifier = self.0.lock().unwrap().collections[&r.collection_name].2.get("lexical").copied();
            if r.using.as_deref() != Some("lexical") || modifier != Some(Some(q::Modifier::Idf as i32)) {
                return Err(Status::invalid_argument(
                    "a sparse query must use \"lexical\", created with the IDF modifier",
                ));
            }
            self.sparse_nearest(&r.collection_name, &sparse, &r.filter, limit)
        } else if r.prefetch.is_empty() {
            let vector = query_vector(&r.query).ok_or_else(|| Status::invalid_argument("no nearest query"))?;
            self.nearest(&r.collection_name, &vector, &r.filter, limit)
        } else {
            // Reciprocal rank fusion of the prefetches' lists.
            let mut fused: BTreeMap<u64, f32> = BTreeMap::new();
            for prefetch in &r.prefetch {
                let vector = query_vector(&prefetch.query).ok_or_else(|| Status::invalid_argument("prefetch"))?;
                let list =
                    self.nearest(&r.collection_name, &vector, &prefetch.filter, prefetch.limit.unwrap_or(10) as usize);
                for (rank, (id, _)) in list.iter().enumerate() {
                    *fused.entry(*id).or_default() += 1.0 / (rank as f32 + 2.0);
                }
            }
            let mut fused: Vec<(u64, f32)> = fused.into_iter().collect();
            fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            fused.truncate(limit);
            fused
        };
        let state = self.0.lock().unwrap();
        let result = scored
            .into_iter()
            .map(|(id, score)| q::ScoredPoint {
                id: Some(q::PointId::from(id)),
                payload: state.points[&(r.collection_name.clone(), id)].2.clone(),
                score,
                ..Default::default()
            })
            .collect();
        Ok(q::QueryResponse { result, ..Default::default() })
    }
}

/// Serves the fake on a loopback port from a background thread.
fn serve(fake: Fake) -> SocketAddr {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        runtime.block_on(async move {
            tonic::transport::Server::builder()
                .add_service(QdrantServer::new(fake.clone()))
                .add_service(CollectionsServer::new(fake.clone()))
                .add_service(PointsServer::new(fake))
                .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener))
                .await
                .unwrap();
        });
    });
    addr
}

fn point(no: u32, id: &str, vector: [f32; 3], language: &str, entities: &[&str]) -> VectorPoint {
    VectorPoint {
        passage_id: id.into(),
        no: PassageNo(no),
        vector: vector.to_vec(),
        sparse: None,
        document_id: id.rsplit_once('.').unwrap().0.trim_start_matches("p.").into(),
        work: Some("w1".into()),
        year: Some(1859),
        language: language.into(),
        entity_ids: entities.iter().map(|e| (*e).to_owned()).collect(),
    }
}

#[test]
fn server_adapter_creates_indexes_upserts_and_queries() {
    let fake = Fake::default();
    let url = format!("http://{}", serve(fake.clone()));
    let tuning = SearchTuning { hnsw_ef: 64, exact: false };
    let store = ServerStore::create(&url, "evident-gen-000001", 3, false, tuning).unwrap();

    {
        let state = fake.0.lock().unwrap();
        assert_eq!(state.collections["evident-gen-000001"], (3, q::Distance::Cosine as i32, BTreeMap::new()));
        let mut fields: Vec<(String, i32)> = state.indexes.iter().map(|(_, f, t)| (f.clone(), *t)).collect();
        fields.sort();
        let keyword = q::FieldType::Keyword as i32;
        assert_eq!(
            fields,
            // What filters read; passage and document ids are payload without an index.
            vec![
                ("entity_ids".into(), keyword),
                ("language".into(), keyword),
                ("work".into(), keyword),
                ("year".into(), q::FieldType::Integer as i32),
            ]
        );
    }

    let points = vec![
        point(0, "p.a.0001", [1.0, 0.0, 0.0], "en", &["concept.x"]),
        point(1, "p.a.0002", [0.9, 0.1, 0.0], "en", &[]),
        point(2, "p.b.0001", [0.0, 1.0, 0.0], "de", &["concept.x"]),
        point(3, "p.b.0002", [0.0, 0.9, 0.1], "en", &["concept.y"]),
    ];
    // A search answers point ids; these are the passage ids they stand for.
    let ids = |hits: &[(u64, f32)]| -> Vec<String> {
        hits.iter()
            .map(|(point, _)| points.iter().find(|p| point_id(&p.passage_id) == *point).unwrap().passage_id.clone())
            .collect()
    };
    store.upsert(&points).unwrap();
    {
        let state = fake.0.lock().unwrap();
        let key = ("evident-gen-000001".to_owned(), point_id("p.a.0001"));
        let (vector, sparse, payload) = &state.points[&key];
        assert_eq!(sparse, &None);
        assert_eq!(vector, &vec![1.0, 0.0, 0.0]);
        assert_eq!(string_values(&payload["passage_id"]), vec!["p.a.0001"]);
        assert!(matches!(payload["no"].kind, Some(q::value::Kind::IntegerValue(0))));
        assert_eq!(string_values(&payload["entity_ids"]), vec!["concept.x"]);
        assert!(matches!(payload["year"].kind, Some(q::value::Kind::IntegerValue(1859))));
    }
    assert_eq!(store.count().unwrap(), 4);

    // Filtered nearest-neighbour query.
    let filter = VectorFilter { language: Some("en".into()), ..VectorFilter::default() };
    let hits =
        store.search(&VectorQuery { vectors: vec![vec![0.0, 1.0, 0.0]], filter: filter.clone(), limit: 2 }).unwrap();
    assert_eq!(ids(&hits), vec!["p.b.0002", "p.a.0002"]);
    {
        let state = fake.0.lock().unwrap();
        let sent = state.queries.last().unwrap();
        assert_eq!(sent.limit, Some(2));
        assert_eq!(sent.params.as_ref().and_then(|p| p.hnsw_ef), Some(64));
        assert_eq!(sent.filter.as_ref().unwrap().must.len(), 1);
        assert!(sent.prefetch.is_empty());
        // A search reads no payload: the reader maps point ids to passage numbers.
        let selector = sent.with_payload.as_ref().and_then(|w| w.selector_options.as_ref());
        assert!(matches!(selector, Some(q::with_payload_selector::SelectorOptions::Enable(false))), "{selector:?}");
    }

    // Entity filter: any of the listed entities.
    let by_entity = VectorFilter { entity_ids: vec!["concept.x".into()], ..VectorFilter::default() };
    let hits = store.search(&VectorQuery { vectors: vec![vec![0.0, 1.0, 0.0]], filter: by_entity, limit: 10 }).unwrap();
    assert_eq!(ids(&hits), vec!["p.b.0001", "p.a.0001"]);

    // Several vectors: one prefetch each, fused by RRF on the server.
    let two = VectorQuery { vectors: vec![vec![1.0, 0.0, 0.0], vec![0.0, 0.0, 1.0]], filter, limit: 3 };
    let hits = store.search(&two).unwrap();
    assert_eq!(hits.len(), 3);
    {
        let state = fake.0.lock().unwrap();
        let sent = state.queries.last().unwrap();
        assert_eq!(sent.prefetch.len(), 2);
        assert!(sent.prefetch.iter().all(|p| p.filter.is_some() && p.limit == Some(3)));
        let fusion = sent.query.as_ref().and_then(|q| q.variant.as_ref());
        assert!(matches!(fusion, Some(q::query::Variant::Fusion(f)) if *f == q::Fusion::Rrf as i32), "{fusion:?}");
    }

    // Stored vectors come back by passage id (used to reuse vectors across builds).
    let vectors = store.vectors(&["p.a.0002".into(), "p.missing.0001".into()]).unwrap();
    assert_eq!(vectors.len(), 1);
    assert_eq!(vectors["p.a.0002"], vec![0.9, 0.1, 0.0]);

    store.drop_collection().unwrap();
    assert!(fake.0.lock().unwrap().collections.is_empty());
}

/// Builds the embedded corpus into `<tmp>/a` and the server one into `<tmp>/b`, both
/// succeeding: the two indexes, and the server build's run (its summary line).
fn build_both(
    tmp: &std::path::Path,
    embedded: &std::path::Path,
    server: &std::path::Path,
) -> (std::path::PathBuf, std::path::PathBuf, crate::common::Run) {
    let (a, b) = (tmp.join("a"), tmp.join("b"));
    let out = crate::common::build(embedded, &a);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = crate::common::build(server, &b);
    assert_eq!(out.code, 0, "{}", out.stderr);
    (a, b, out)
}

#[test]
fn server_backend_gives_the_same_results_as_the_embedded_store() {
    use crate::common::*;
    let fake = Fake::default();
    let url = format!("http://{}", serve(fake.clone()));
    let tmp = tempfile::tempdir().unwrap();
    let (embedded_corpus, server_corpus) = (tmp.path().join("embedded"), tmp.path().join("server"));
    small_corpus(&embedded_corpus);
    small_corpus(&server_corpus);
    let toml = std::fs::read_to_string(server_corpus.join("corpus.toml")).unwrap();
    let toml = format!("{toml}\n[vector]\nbackend = \"qdrant\"\nurl = \"{url}\"\ncollection = \"evident-test\"\n");
    std::fs::write(server_corpus.join("corpus.toml"), toml).unwrap();

    let (a, b, out) = build_both(tmp.path(), &embedded_corpus, &server_corpus);
    let passages: usize = out.stdout.split(", ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    {
        let state = fake.0.lock().unwrap();
        assert_eq!(state.collections.keys().collect::<Vec<_>>(), vec!["evident-test-gen-000001"]);
        assert_eq!(state.points.len(), passages);
    }
    for (query, filter) in [
        ("how do animals compete to survive", vec![]),
        ("letters of a word that are not pronounced", vec![]),
        ("Organismen vermehren sich", vec!["--language", "de"]),
        ("selection by breeders", vec!["--work", "ed-1859"]),
    ] {
        let mut args = vec!["--mode", "vector", "-k", "10"];
        args.extend(filter);
        let embedded = search_hits(&a, query, &args);
        let server = search_hits(&b, query, &args);
        assert!(!ids(&embedded).is_empty(), "{query}");
        assert_eq!(ids(&embedded), ids(&server), "{query}");
    }

    // A rebuild writes a new collection and drops the pruned generation's one.
    assert_eq!(build(&server_corpus, &b).code, 0);
    assert_eq!(build(&server_corpus, &b).code, 0);
    let state = fake.0.lock().unwrap();
    assert_eq!(
        state.collections.keys().collect::<Vec<_>>(),
        vec!["evident-test-gen-000002", "evident-test-gen-000003"]
    );
}

#[test]
fn the_sparse_lexical_lane_on_the_server_ranks_as_the_embedded_store_does() {
    use crate::common::*;
    use crate::sparse_lexical::sparse_corpus;
    let fake = Fake::default();
    let url = format!("http://{}", serve(fake.clone()));
    let tmp = tempfile::tempdir().unwrap();
    let (embedded_corpus, server_corpus) = (tmp.path().join("embedded"), tmp.path().join("server"));
    sparse_corpus(&embedded_corpus, "");
    sparse_corpus(&server_corpus, &format!("[vector]\nbackend = \"qdrant\"\nurl = \"{url}\"\ncollection = \"lex\"\n"));
    let (a, b, _) = build_both(tmp.path(), &embedded_corpus, &server_corpus);
    {
        let state = fake.0.lock().unwrap();
        let (_, _, sparse) = &state.collections["lex-gen-000001"];
        // The sparse vector is named beside the unnamed dense one, with Qdrant's IDF modifier.
        assert_eq!(sparse, &BTreeMap::from([("lexical".to_owned(), Some(q::Modifier::Idf as i32))]));
        assert!(state.points.values().all(|(_, sparse, _)| sparse.as_ref().is_some_and(|s| !s.is_empty())));
        // Dimensions ascending and unique, weights positive (BM25's term weights).
        for (_, sparse, _) in state.points.values() {
            let sparse = sparse.as_ref().unwrap();
            assert!(sparse.windows(2).all(|w| w[0].0 < w[1].0) && sparse.iter().all(|(_, v)| *v > 0.0));
        }
    }
    for (query, filter) in [
        ("geological", vec![]),
        ("struggle for existence of organic beings", vec![]),
        ("letters of a word that are not pronounced", vec![]),
        ("Organismen vermehren sich", vec!["--language", "de"]),
        ("selection by breeders", vec!["--work", "ed-1859"]),
    ] {
        let mut args = vec!["--mode", "lexical", "-k", "10"];
        args.extend(filter.iter().copied());
        let embedded = search_hits(&a, query, &args);
        let server = search_hits(&b, query, &args);
        assert!(!ids(&embedded).is_empty(), "{query}");
        assert_eq!(ids(&embedded), ids(&server), "{query}");
        let state = fake.0.lock().unwrap();
        let sent = state.queries.last().unwrap();
        assert_eq!(sent.using.as_deref(), Some("lexical"), "{query}");
        assert!(query_sparse(&sent.query).is_some_and(|s| !s.is_empty()), "{query}: {:?}", sent.query);
        assert_eq!(sent.filter.is_some(), !filter.is_empty(), "{query}");
    }

    // A rebuild reuses the unchanged sources' dense vectors, read back by name beside the sparse ones.
    let changed = server_corpus.join("docs/de/ch1.txt");
    let text = std::fs::read_to_string(&changed).unwrap();
    std::fs::write(&changed, format!("{text}\nDie Tauben der Züchter variieren sehr.\n")).unwrap();
    let out = build(&server_corpus, &b);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let generation = std::fs::read_to_string(b.join("CURRENT")).unwrap();
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(b.join("generations").join(generation.trim()).join("manifest.json")).unwrap(),
    )
    .unwrap();
    assert!(manifest["vector"]["reused"].as_u64().unwrap() > 0, "{}", manifest["vector"]);
    assert!(!ids(&search_hits(&b, "Tauben der Züchter", &["--mode", "lexical"])).is_empty());
}
