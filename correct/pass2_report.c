/* pass2_report.c -- pass 2's reports: the text summary and its JSON form
 * (tbbt_pass2_report, tbbt_pass2_report_json). Only reads the counts. */
#include "pass2_int.h"

#include <inttypes.h>
#include <string.h>

#include "cut.h"
#include "pass2_obj.h"
#include "rectext.h"

/* Share of the trace, in percent, of n records. */
static double share(const struct tbbt_pass2 *p, uint64_t n) {
    return p->st.records_in ? 100.0 * (double)n / (double)p->st.records_in : 0.0;
}

/* Contract in pass2.h. */
void tbbt_pass2_report(const struct tbbt_pass2 *p, FILE *out) {
    const struct tbbt_pass2_stats *s = &p->st;
    fprintf(out,
            "Pre-play: %" PRIu64 " records, %" PRIu64 " replay failures found: %" PRIu64
            " corrected, %" PRIu64 " unexplained\n",
            s->records_in, s->failures, s->corrected, s->unexplained);
    fprintf(out, "Inserted: %" PRIu64 " corrective records, %.4f%% of the trace (%" PRIu64 " records out)\n",
            s->inserted, share(p, s->inserted), s->records_out);
    fprintf(out,
            "Lost replies: %" PRIu64 " (%.3f%%): %" PRIu64 " resolved by the model, %" PRIu64
            " by a later record, %" PRIu64 " assumed to succeed\n",
            s->lost, share(p, s->lost), s->lost_by_model, s->lost_by_later, s->lost_unresolved);
    if (s->cut)
        fprintf(out,
                "Cut by the snaplen: %" PRIu64 " calls (%.3f%%) cut before an argument: %" PRIu64
                " names restored through the object, %" PRIu64 " synthetic names, %" PRIu64
                " makes' and setattrs' attributes from the reply, %" PRIu64
                " left unreplayable (%.3f%%); %" PRIu64
                " whole names given the synthetic name the replay knows, %" PRIu64
                " judgements withheld (a cut rename may have made the name)\n",
                s->cut, share(p, s->cut), s->cut_restored, s->cut_synth, s->cut_filled, s->cut_unreplayable,
                share(p, s->cut_unreplayable), s->cut_aliased, s->cut_withheld);
    if (s->cut_matched || s->cut_errors || s->cut_moves_placed || s->cut_bound)
        fprintf(out,
                "Cut names matched by the bytes and length kept: %" PRIu64
                "; failed cut calls given a name that"
                " fails the same way: %" PRIu64
                "; cut renames no record placed, kept in their directory: %" PRIu64
                "; cut renames and links placed where a later cut name showed one: %" PRIu64 " (%" PRIu64
                " the one left when replies ruled out every name held, %" PRIu64
                " the last of several no record used); cut rename targets shown to be a name they took"
                " over: %" PRIu64 "\n",
                s->cut_matched, s->cut_errors, s->cut_moves_placed, s->cut_bound, s->cut_bound_lone,
                s->cut_guessed, s->cut_replaced);
    if (s->cut_rm_named || s->cut_rm_guessed)
        fprintf(out,
                "Cut removes and rmdirs named from the records that follow: %" PRIu64
                " (the only candidate left), %" PRIu64
                " at the window's end (the candidate whose object no later record used)\n",
                s->cut_rm_named, s->cut_rm_guessed);
    fprintf(out,
            "Not failures: %" PRIu64 " taught by a rule, %" PRIu64
            " traced errors outside the model, %" PRIu64 " RPC errors; %" PRIu64
            " inserted records placed at the window's edge\n",
            s->agreed, s->unmodelled, s->rpc_errors, s->late_inserts);
    if (s->window_cut)
        fprintf(out,
                "Window: %" PRIu64 " records left before %.1f s of trace time had passed (the ring at its"
                " most, %u records): a correction whose evidence came later could not be made\n",
                s->window_cut, (double)p->o.window_ns / 1e9, s->ring_slots);
    if (s->concurrent)
        fprintf(out,
                "Concurrent: %" PRIu64 " outcomes explained by an overlapping call of another client "
                "(the server ran the two in the other order): not failures; %" PRIu64
                " of them sent in that order (a record placed beside the other)\n",
                s->concurrent, s->reordered);
    if (s->failures || s->attr_initial)
        fprintf(out, "Per rule (a failure whose correction revealed a second one counts under both rules; "
                     "inserted records and their share of the trace):\n");
    for (unsigned i = 0; i < tbbt_nrules; i++) {
        if (!s->rule_failures[i] && !s->rule_initial[i]) continue;
        fprintf(out, "  rule %-26s %8" PRIu64 " failures %8" PRIu64 " inserted %8.4f%%", tbbt_rules[i].name,
                s->rule_failures[i], s->rule_inserted[i], share(p, s->rule_inserted[i]));
        if (s->rule_initial[i])
            fprintf(out, ", %" PRIu64 " in the initial image instead", s->rule_initial[i]);
        fprintf(out, "  (%s)\n", tbbt_rules[i].why);
    }
    fprintf(out,
            "Model: %" PRIu64 " objects (%" PRIu64 " initial, %" PRIu64 " created, %" PRIu64
            " gone), %" PRIu64 " names (%" PRIu64 " present, %" PRIu64 " present before the trace)\n",
            s->model.objects, s->model.initial, s->model.created, s->model.gone, s->model.entries,
            s->model.present, s->model.init_present);
    if (s->unexplained || (p->o.list_corrected && p->nlisted))
        fprintf(out, "Failures listed (%u; %" PRIu64 " unexplained):\n%s", p->nlisted, s->unexplained,
                p->listed->str);
}

/* Contract in pass2.h. */
void tbbt_pass2_report_json(const struct tbbt_pass2 *p, GString *o) {
    const struct tbbt_pass2_stats *s = &p->st;
    g_string_append_printf(o,
                           "{\"records\":%" PRIu64 ",\"records_out\":%" PRIu64 ",\"failures\":%" PRIu64
                           ",\"corrected\":%" PRIu64 ",\"unexplained\":%" PRIu64 ",\"inserted\":%" PRIu64
                           ",\"inserted_share\":%.6f,\"agreed\":%" PRIu64 ",\"unmodelled\":%" PRIu64
                           ",\"rpc_errors\":%" PRIu64 ",\"late_inserts\":%" PRIu64 ",\"concurrent\":%" PRIu64
                           ",\"reordered\":%" PRIu64,
                           s->records_in, s->records_out, s->failures, s->corrected, s->unexplained,
                           s->inserted, share(p, s->inserted) / 100.0, s->agreed, s->unmodelled,
                           s->rpc_errors, s->late_inserts, s->concurrent, s->reordered);
    g_string_append_printf(o,
                           ",\"lost\":%" PRIu64 ",\"lost_by_model\":%" PRIu64 ",\"lost_by_later\":%" PRIu64
                           ",\"lost_unresolved\":%" PRIu64 ",\"window_cut\":%" PRIu64 ",\"ring_slots\":%u"
                           ",\"stale_withdrawn\":%" PRIu64,
                           s->lost, s->lost_by_model, s->lost_by_later, s->lost_unresolved, s->window_cut,
                           s->ring_slots, s->stale_withdrawn);
    g_string_append_printf(
        o,
        ",\"cut\":%" PRIu64 ",\"cut_restored\":%" PRIu64 ",\"cut_synth\":%" PRIu64 ",\"cut_filled\":%" PRIu64
        ",\"cut_unreplayable\":%" PRIu64 ",\"cut_aliased\":%" PRIu64 ",\"cut_withheld\":%" PRIu64
        ",\"cut_rm_named\":%" PRIu64 ",\"cut_rm_guessed\":%" PRIu64 ",\"attr_initial\":%" PRIu64
        ",\"cut_matched\":%" PRIu64 ",\"cut_errors\":%" PRIu64 ",\"cut_moves_placed\":%" PRIu64
        ",\"cut_bound\":%" PRIu64 ",\"cut_bound_lone\":%" PRIu64 ",\"cut_guessed\":%" PRIu64
        ",\"cut_replaced\":%" PRIu64,
        s->cut, s->cut_restored, s->cut_synth, s->cut_filled, s->cut_unreplayable, s->cut_aliased,
        s->cut_withheld, s->cut_rm_named, s->cut_rm_guessed, s->attr_initial, s->cut_matched, s->cut_errors,
        s->cut_moves_placed, s->cut_bound, s->cut_bound_lone, s->cut_guessed, s->cut_replaced);
    g_string_append(o, ",\"rules\":{");
    int first = 1;
    for (unsigned i = 0; i < tbbt_nrules; i++) {
        if (!s->rule_failures[i] && !s->rule_initial[i]) continue;
        g_string_append_printf(o,
                               "%s\"%s\":{\"failures\":%" PRIu64 ",\"inserted\":%" PRIu64
                               ",\"inserted_share\":%.6f,\"initial\":%" PRIu64 "}",
                               first ? "" : ",", tbbt_rules[i].name, s->rule_failures[i], s->rule_inserted[i],
                               share(p, s->rule_inserted[i]) / 100.0, s->rule_initial[i]);
        first = 0;
    }
    g_string_append_printf(o,
                           "},\"model\":{\"objects\":%" PRIu64 ",\"initial\":%" PRIu64 ",\"created\":%" PRIu64
                           ",\"gone\":%" PRIu64 ",\"names\":%" PRIu64 ",\"present\":%" PRIu64
                           ",\"initially_present\":%" PRIu64 "},\"listed\":",
                           s->model.objects, s->model.initial, s->model.created, s->model.gone,
                           s->model.entries, s->model.present, s->model.init_present);
    tbbt_json_str(o, p->listed->str, p->listed->len);
    g_string_append_c(o, '}');
}

/* Contract in pass2_int.h. */
void tbbt_p2_list_failure(struct tbbt_pass2 *p, const struct tbbt_rec *r, enum tbbt_oc pred,
                          enum tbbt_oc traced, const char *what) {
    p->st.unexplained++;
    if (p->nlisted >= p->o.max_listed) return;
    p->nlisted++;
    g_string_append_printf(p->listed, "  %s %s: predicted %s, traced %s: ", tbbt_op_info(r->op)->name, what,
                           tbbt_oc_name(pred), tbbt_oc_name(traced));
    if (tbbt_rec_format_text(r, p->listed) != 0) g_string_append(p->listed, "(record not printable)");
    g_string_append_c(p->listed, '\n');
}
