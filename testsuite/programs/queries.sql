create table t (x int);
insert into t values (1), (2), (3);
select sum(x) from t;
