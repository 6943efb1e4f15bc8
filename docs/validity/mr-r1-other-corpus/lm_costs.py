import csv, sys, math
from llama_cpp import Llama
import numpy as np
gguf=sys.argv[1]
llm=Llama(model_path=gguf, logits_all=True, n_ctx=512, verbose=False, n_threads=2)
def lp(text):
    toks=llm.tokenize(text.encode(), add_bos=True)
    llm.reset(); llm.eval(toks)
    logits=np.array(llm.scores[:len(toks)])
    tot=0.0
    for i in range(1,len(toks)):
        row=logits[i-1]; m=row.max(); lse=m+math.log(np.exp(row-m).sum())
        tot+=row[toks[i]]-lse
    return tot, len(toks)
out=open(sys.argv[3],'w')
for sheet,readers in [('/tmp/r1judge2/rows.tsv',['/tmp/r1judge2/reader_c.tsv','/tmp/r1judge2/reader_d.tsv']),('/tmp/r1judge/rows.tsv',['/tmp/r1judge/reader_a.tsv','/tmp/r1judge/reader_b.tsv'])]:
    rows=list(csv.DictReader(open(sheet),delimiter='\t',quoting=csv.QUOTE_NONE))
    rs=[{r['case_id']:r for r in csv.DictReader(open(p),delimiter='\t',quoting=csv.QUOTE_NONE)} for p in readers]
    for r in rows:
        s=r['source'][6:]; f=r['follow_up'][6:]
        a,_=lp(s); b,_=lp(f)
        nat=all(x[r['case_id']]['natural']=='yes' for x in rs)
        out.write(f"{r['case_id']}\t{a-b:.3f}\t{int(nat)}\n"); out.flush()
