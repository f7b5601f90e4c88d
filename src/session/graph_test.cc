// The parts of `!graph` that need no store: the cron words, the arguments, and both renderers
// over graphs built by hand. The walk over resources is tested end to end in test/sql/graph.test.
#include "session/graph.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace hop::session {
namespace {

TEST(GraphTest, HumanizeCron) {
  struct Case {
    const char* schedule;
    const char* want;
  };
  const Case kCases[] = {
      {"0 * * * *", "every hour"},
      {"@hourly", "every hour"},
      {"*/15 * * * *", "every 15 minutes"},
      {"* * * * *", "every minute"},
      {"0 0 * * *", "every day at 00:00"},
      {"30 9 * * 1-5", "at 09:30 on Monday through Friday"},
      {"0 6 15 * *", "at 06:00 on day 15 of every month"},
      // Shapes without words, and what does not parse, as written.
      {"0 9-17 * * 1-5", "0 9-17 * * 1-5"},
      {"  5,10 1  * * * ", "5,10 1  * * *"},
      {"not a schedule", "not a schedule"},
      {"61 * * * *", "61 * * * *"},
  };
  for (const Case& c : kCases) EXPECT_EQ(HumanizeCron(c.schedule), c.want) << c.schedule;
}

TEST(GraphTest, Arguments) {
  struct Case {
    const char* line;
    const char* want;  // identifier/depth/format, or the error
  };
  const Case kCases[] = {
      {"ADS.PAGE_VIEWS", "ADS.PAGE_VIEWS/2/mermaid"},
      {"ADS.PAGE_VIEWS --depth 0", "ADS.PAGE_VIEWS/0/mermaid"},
      {"--depth 5 --format JSON ADS.X", "ADS.X/5/json"},
      {"  ads.x\t--format  mermaid ", "ads.x/2/mermaid"},
      {"\"ADS\".\"a b\" --depth 1", "\"ADS\".\"a b\"/1/mermaid"},
      {"\"ADS\".\"say \"\"hi\"\"\"", "\"ADS\".\"say \"\"hi\"\"\"/2/mermaid"},
      {"ADS.X --depth", "Invalid Argument: --depth requires an integer value"},
      {"ADS.X --depth two", "Invalid Argument: --depth requires an integer value"},
      {"ADS.X --depth 1.5", "Invalid Argument: --depth requires an integer value"},
      {"ADS.X --depth 99999999999", "Invalid Argument: --depth requires an integer value"},
      {"ADS.X --depth -1", "Invalid Argument: depth must be non-negative; got: -1"},
      {"ADS.X --format dot",
       "Invalid Argument: Unsupported graph format: 'dot'. Available formats: [mermaid, json]"},
      {"ADS.X --format",
       "Invalid Argument: Unsupported graph format: ''. Available formats: [mermaid, json]"},
      {"ADS.X ADS.Y", "Invalid Argument: Unknown argument to !graph: ADS.Y"},
      {"ADS.X --direction up", "Invalid Argument: Unknown argument to !graph: --direction"},
      {"table ADS.X", "Invalid Argument: Unknown argument to !graph: ADS.X"},
      {"", "Invalid Argument: !graph needs a table or view: !graph <identifier> [--depth N] "
           "[--format mermaid|json]"},
      {"\"ADS.X", "Invalid Argument: !graph: unclosed quote in \"ADS.X"},
  };
  for (const Case& c : kCases) {
    std::string got;
    auto args = SplitGraphArguments(c.line);
    if (!args.ok()) {
      got = args.status().ToString();
    } else if (auto r = ParseGraphArguments(*args); !r.ok()) {
      got = r.status().ToString();
    } else {
      got = r->identifier + "/" + std::to_string(r->depth) + "/" +
            (r->format == GraphFormat::kJson ? "json" : "mermaid");
    }
    EXPECT_EQ(got, c.want) << c.line;
  }
}

GraphNode External(const std::string& database, std::vector<std::string> path) {
  GraphNode n;
  n.kind = GraphNodeKind::kExternal;
  n.database = database;
  n.path = path;
  n.name = path.empty() ? "" : path[0];
  for (size_t i = 1; i < path.size(); ++i) n.name += "." + path[i];
  n.id = "external:" + database + "/" + n.name;
  return n;
}

GraphNode Named(GraphNodeKind kind, const std::string& prefix, const std::string& name) {
  GraphNode n;
  n.kind = kind;
  n.namespace_name = "default";
  n.name = name;
  n.id = prefix + ":default/" + name;
  return n;
}

TEST(GraphTest, MermaidOfATableAlone) {
  Graph g;
  g.nodes.push_back(External("ads-database", {"ADS", "PAGE_VIEWS"}));
  EXPECT_EQ(RenderMermaid(g),
            "flowchart LR\n"
            "  n0[(\"ADS.PAGE_VIEWS\")]\n"
            "%% WARNING: no pipelines reference this resource — the identifier may not exist or "
            "no pipelines have been deployed against it yet.\n");
}

TEST(GraphTest, MermaidOfAViewWithItsPipeline) {
  Graph g;
  GraphNode view = Named(GraphNodeKind::kView, "view", "ads-multi");
  view.materialized = true;
  g.nodes.push_back(view);
  GraphNode p = Named(GraphNodeKind::kPipeline, "pipeline", "ads-multi");
  p.job_kind = "FlinkSessionJob";
  p.engine = "Flink";
  g.nodes.push_back(p);
  g.nodes.push_back(External("ads-database", {"ADS", "PAGE_VIEWS"}));
  g.nodes.push_back(External("profile-database", {"PROFILE", "MEMBERS"}));
  g.nodes.push_back(External("ads-database", {"ADS", "MULTI"}));
  g.edges = {{0, 1, GraphEdgeKind::kOwnerOf},
             {2, 1, GraphEdgeKind::kDependsOnSource},
             {3, 1, GraphEdgeKind::kDependsOnSource},
             {1, 4, GraphEdgeKind::kDependsOnSink}};
  EXPECT_EQ(RenderMermaid(g),
            "flowchart LR\n"
            "  subgraph n0[\"Materialized View\"]\n"
            "    n1[/\"ads-multi<br/>kind: FlinkSessionJob<br/>engine: Flink\"/]\n"
            "  end\n"
            "  n2[(\"ADS.PAGE_VIEWS\")]\n"
            "  n3[(\"PROFILE.MEMBERS\")]\n"
            "  n4[(\"ADS.MULTI\")]\n"
            "  n2 --> n1\n"
            "  n3 --> n1\n"
            "  n1 --> n4\n");
}

TEST(GraphTest, MermaidOfTriggersEscapesQuotes) {
  Graph g;
  g.nodes.push_back(External("kafka-database", {"KAFKA", "say \"hi\""}));
  GraphNode t = Named(GraphNodeKind::kTrigger, "trigger", "crontrigger");
  t.schedule = "0 * * * *";
  t.job_template = "my-app";
  t.container = "hello";
  t.paused = true;
  g.nodes.push_back(t);
  GraphNode bare = Named(GraphNodeKind::kTrigger, "trigger", "bare");
  g.nodes.push_back(bare);
  g.edges = {{0, 1, GraphEdgeKind::kTriggers}, {0, 2, GraphEdgeKind::kTriggers}};
  EXPECT_EQ(RenderMermaid(g),
            "flowchart LR\n"
            "  n0[(\"KAFKA.say &quot;hi&quot;\")]\n"
            "  n1{\"crontrigger<br/>cron: every hour<br/>template: my-app<br/>container: "
            "hello<br/>(paused)\"}\n"
            "  n2{\"bare\"}\n"
            "  n0 -.-> n1\n"
            "  n0 -.-> n2\n");
}

Graph LogicalGraph() {
  Graph g;
  GraphNode lt = Named(GraphNodeKind::kLogicalTable, "logicaltable", "logicaloffline-members");
  lt.tiers = {{"nearline", "ads-database"}, {"offline", "profile-database"}, {"online", "venice"}};
  g.nodes.push_back(lt);
  GraphNode p = Named(GraphNodeKind::kPipeline, "pipeline", "logical-members-nearline-to-offline");
  p.job_kind = "FlinkSessionJob";
  p.engine = "Flink";
  g.nodes.push_back(p);
  g.nodes.push_back(External("ads-database", {"ADS", "MEMBERS"}));
  g.nodes.push_back(External("profile-database", {"PROFILE", "MEMBERS"}));
  GraphNode t = Named(GraphNodeKind::kTrigger, "trigger", "logical-members-offline-trigger");
  t.job_template = "retl-job-template";
  t.paused = true;
  g.nodes.push_back(t);
  g.nodes.push_back(External("other", {"X", "Y"}));  // downstream, outside the table
  g.edges = {{0, 1, GraphEdgeKind::kOwnerOf},         {2, 1, GraphEdgeKind::kDependsOnSource},
             {1, 3, GraphEdgeKind::kDependsOnSink},   {0, 2, GraphEdgeKind::kOwnerOf},
             {0, 3, GraphEdgeKind::kOwnerOf},         {0, 4, GraphEdgeKind::kOwnerOf},
             {3, 4, GraphEdgeKind::kTriggers},        {4, 2, GraphEdgeKind::kTriggers},
             {2, 5, GraphEdgeKind::kDependsOnSink}};
  return g;
}

TEST(GraphTest, MermaidOfALogicalTable) {
  EXPECT_EQ(RenderMermaid(LogicalGraph()),
            "flowchart TD\n"
            "  subgraph n0[\"LogicalTable logicaloffline-members\"]\n"
            "    direction LR\n"
            "    subgraph s_nearline[\"nearline\"]\n"
            "      n2[(\"ADS.MEMBERS\")]\n"
            "    end\n"
            "    subgraph s_offline[\"offline\"]\n"
            "      n3[(\"PROFILE.MEMBERS\")]\n"
            "    end\n"
            "    n1[/\"logical-members-nearline-to-offline<br/>kind: FlinkSessionJob<br/>engine: "
            "Flink\"/]\n"
            "    n4{\"logical-members-offline-trigger<br/>template: retl-job-template<br/>"
            "(paused)\"}\n"
            "  end\n"
            "  n5[(\"X.Y\")]\n"
            "  n2 --> n1\n"
            "  n1 --> n3\n"
            "  n3 -.-> n4\n"
            "  n4 -.-> n2\n"
            "  n2 --> n5\n");
}

TEST(GraphTest, Json) {
  const std::string text = RenderJson(LogicalGraph());
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find('\n'), text.size() - 1) << "one line";
  const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(doc["root"], "logicaltable:default/logicaloffline-members");
  EXPECT_EQ(doc["orientation"], "TD");
  ASSERT_EQ(doc["nodes"].size(), 6u);
  EXPECT_EQ(doc["nodes"][0].dump(),
            R"({"id":"logicaltable:default/logicaloffline-members","kind":"LOGICAL_TABLE",)"
            R"("displayName":"logicaloffline-members","namespace":"default","tiers":)"
            R"({"nearline":"ads-database","offline":"profile-database","online":"venice"}})");
  EXPECT_EQ(doc["nodes"][1].dump(),
            R"({"id":"pipeline:default/logical-members-nearline-to-offline","kind":"PIPELINE",)"
            R"("displayName":"logical-members-nearline-to-offline","namespace":"default",)"
            R"("jobKind":"FlinkSessionJob","engine":"Flink"})");
  EXPECT_EQ(doc["nodes"][2].dump(),
            R"({"id":"external:ads-database/ADS.MEMBERS","kind":"EXTERNAL",)"
            R"("displayName":"ADS.MEMBERS","database":"ads-database","path":["ADS","MEMBERS"]})");
  EXPECT_EQ(doc["nodes"][4].dump(),
            R"({"id":"trigger:default/logical-members-offline-trigger","kind":"TRIGGER",)"
            R"("displayName":"logical-members-offline-trigger","namespace":"default",)"
            R"("jobTemplate":"retl-job-template","paused":true})");
  ASSERT_EQ(doc["edges"].size(), 9u);
  EXPECT_EQ(doc["edges"][0].dump(),
            R"({"from":"logicaltable:default/logicaloffline-members",)"
            R"("to":"pipeline:default/logical-members-nearline-to-offline","type":"OWNER_OF"})");
  EXPECT_EQ(doc["edges"][1]["type"], "DEPENDS_ON_SOURCE");
  EXPECT_EQ(doc["edges"][2]["type"], "DEPENDS_ON_SINK");
  EXPECT_EQ(doc["edges"][6]["type"], "TRIGGERS");

  Graph alone;
  alone.nodes.push_back(External("ads-database", {"ADS", "PAGE_VIEWS"}));
  EXPECT_EQ(RenderJson(alone),
            R"({"root":"external:ads-database/ADS.PAGE_VIEWS","orientation":"LR","nodes":[)"
            R"({"id":"external:ads-database/ADS.PAGE_VIEWS","kind":"EXTERNAL",)"
            R"("displayName":"ADS.PAGE_VIEWS","database":"ads-database","path":["ADS",)"
            R"("PAGE_VIEWS"]}],"edges":[]})"
            "\n");
}

}  // namespace
}  // namespace hop::session
